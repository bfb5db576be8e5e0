import Airloc
import Arguments
import TerminalUI

/// `airloc postal COUNTRY CODE`: the places a postal code belongs to.
enum PostalCommand {
    static let spec = CommandSpec(
        name: "postal", summary: "Look up a postal code: place, state, coordinates (offline, else Zippopotam.us)",
        operands: "COUNTRY CODE | --countries", operandOptions: [.countries],
        discussion: """
            COUNTRY is an ISO code or an English name, any case (us, USA, "United States"). CODE
            is checked against the country's format before anything is sent: letters, digits,
            spaces and hyphens only, leading zeros kept ("01949"), a ZIP+4 looked up by its
            first five digits, GB/CA/IE/MT by their first part ("SW1A 1AA" -> SW1A).
            Answered offline where the built-in data has the code (US ZIP codes from GeoNames;
            323,000 codes of other countries from countrystatecity, ODbL), else, or with
            --online, by Zippopotam.us; answers are merged and labelled by source.
            --air continues into the air report for the first place.
            Exit status: 0 found; 65 no such code, or a code that cannot exist (the message
            says the expected format); 64 usage; 69/75 the service failed and nothing offline.
            """,
        options: [
            .json.saying("print JSON (schema airloc.postal/1, docs/json-schema.md)"),
            .online.saying("ask Zippopotam.us even when the offline data answers").orNext(),
            .offline,
            .air,
            .countries,
        ] + ReportOptions.specs.filter { ![.json, .format].contains($0.name) },
        maxPositionals: nil)

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let gazetteer = try context.loadGazetteer()
        if arguments.has(.countries) {
            let document = PostalCountriesJSON(gazetteer: gazetteer)
            context.console.out(
                arguments.has(.json)
                    ? JSONDocument.encode(document)
                    : PostalText(console: context.console).render(countries: document.countries))
            return .ok
        }
        if arguments.has(.online) && arguments.has(.offline) {
            throw .usage("--online and --offline contradict each other", command: spec.name)
        }
        guard arguments.positionals.count >= 2 else {
            throw .usage("expected COUNTRY and CODE, e.g. 'airloc postal US 90210'", command: spec.name)
        }
        // "airloc postal GB SW1A 1AA" without quotes: the words after the country are the code.
        let answer: PostalAnswer
        do {
            answer = try await PostalSearch.places(
                country: arguments.positionals[0], code: arguments.positionals.dropFirst().joined(separator: " "),
                sources: arguments.has(.offline) ? .offlineOnly : arguments.has(.online) ? .both : .automatic,
                gazetteer: gazetteer, settings: context.configuration)
        } catch {
            throw Self.error(error, offlineOnly: arguments.has(.offline))
        }
        let (lookup, places, failure) = (answer.lookup, answer.places, answer.failure)
        // With offline answers a failed service is a warning; without, it is the error.
        if let failure {
            context.console.err("airloc: \(failure.description); showing the offline answer\n")
        }
        var report: AirReport?
        if arguments.has(.air), let fix = answer.fix, let first = places.first {
            var options = try ReportOptions.parse(
                arguments, configuration: context.configuration, command: spec.name)
            options.format = arguments.has(.json) ? .json : .text
            report = await AirReport.make(
                fix: fix, provider: "postal", attempts: [], accuracy: .full, context: context,
                configuration: context.configuration, gazetteer: gazetteer, options: options,
                chosenPlace: first.place(in: gazetteer))
        }
        if arguments.has(.json) {
            context.console.out(
                JSONDocument.encode(
                    PostalJSON(lookup: lookup, places: places, failure: failure, gazetteer: gazetteer, report: report)))
        } else {
            context.console.out(
                PostalText(console: context.console).render(lookup, places: places, gazetteer: gazetteer))
            if let report {
                context.console.out("\n" + ReportText(console: context.console).render(report))
            }
        }
        if let report { return AirReport.exitCode(for: report, console: context.console) }
        return .ok
    }

    /// The exit status and message for a search without an answer.
    static func error(_ error: PostalSearchError, offlineOnly: Bool) -> CLIError {
        switch error {
        case .unknownCountry(let text):
            return .usage("unknown country '\(text)': use an ISO code (US, DEU) or an English name", command: spec.name)
        case .badCode(let problem, let country, let format):
            let explanation = PostalLookup.explain(
                problem, country: country, format: format,
                otherwise: "see 'airloc postal --countries' for \(country)'s format")
            return CLIError(code: .dataError, message: explanation)
        case .serviceFailed(let failure):
            return CLIError(code: failure.isRetryable ? .tempFail : .unavailable, message: failure.description)
        case .noPlace(let lookup, let coveredOnline, let askedOnline):
            var message = "no place found for \(lookup.country) \(lookup.code)"
            if !askedOnline && !coveredOnline {
                message += " (\(lookup.countryName) is not in the offline data, and Zippopotam.us does not cover it)"
            } else if offlineOnly {
                message += " offline (without --offline, Zippopotam.us is asked too)"
            }
            return CLIError(code: .dataError, message: message)
        }
    }
}
