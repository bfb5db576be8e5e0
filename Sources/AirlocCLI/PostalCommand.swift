import Airloc
import Foundation
import Gazetteer
import Geo
import Location
import Web

/// `airloc postal COUNTRY CODE`: the places a postal code belongs to.
enum PostalCommand {
    static let spec = CommandSpec(
        name: "postal", summary: "Look up a postal code: place, state, coordinates (offline, else Zippopotam.us)",
        usage: "COUNTRY CODE [--json] [--online | --offline] [--air] | --countries [--json]",
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
            .flag("json", "print JSON (schema airloc.postal/1, docs/json-schema.md)"),
            .flag("online", "ask Zippopotam.us even when the offline data answers"),
            .flag("offline", "never ask the network"),
            .flag("air", "continue into the air report for the first place"),
            .flag("countries", "list the supported countries with their code format"),
        ] + ReportOptions.specs.filter { !["json", "format"].contains($0.name) },
        maxPositionals: nil)

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let gazetteer = try PlaceData.loadGazetteer(environment: context.environment)
        if arguments.has("countries") {
            PostalCountries.print(gazetteer: gazetteer, json: arguments.has("json"), console: context.console)
            return .ok
        }
        if arguments.has("online") && arguments.has("offline") {
            throw .usage("--online and --offline contradict each other", command: spec.name)
        }
        guard arguments.positionals.count >= 2 else {
            throw .usage("expected COUNTRY and CODE, e.g. 'airloc postal US 90210'", command: spec.name)
        }
        // "airloc postal GB SW1A 1AA" without quotes: the words after the country are the code.
        let lookup = try PostalLookup(
            country: arguments.positionals[0], code: arguments.positionals.dropFirst().joined(separator: " "),
            gazetteer: gazetteer, command: spec.name)
        // The whole code first; where the data holds only first parts (CA "M2M", GB
        // areas), the first part.
        var offline = gazetteer.postalPlaces(countryCode: lookup.country, code: lookup.key)
        if offline.isEmpty && lookup.onlineCode != lookup.key {
            offline = gazetteer.postalPlaces(countryCode: lookup.country, code: lookup.onlineCode)
        }
        var online: [PostalPlace] = []
        var failure: WebError?
        let askOnline =
            !arguments.has("offline") && Zippopotam.countries.contains(lookup.country)
            && (arguments.has("online") || offline.isEmpty)
        if askOnline {
            let service = Zippopotam(
                base: context.configuration.postalURL,
                client: HTTPClient(timeout: .seconds(context.configuration.serviceTimeout)))
            do { online = try await service.places(countryCode: lookup.country, code: lookup.onlineCode) } catch {
                failure = error
            }
        }
        let places = PostalPlace.merge(offline: offline, online: online)
        // With offline answers a failed service is a warning; without, it is the error.
        if let failure, !places.isEmpty {
            context.console.err("airloc: \(failure.description); showing the offline answer\n")
        }
        guard !places.isEmpty else {
            if let failure {
                throw CLIError(code: failure.isRetryable ? .tempFail : .unavailable, message: failure.description)
            }
            var message = "no place found for \(lookup.country) \(lookup.code)"
            if !askOnline && offline.isEmpty && !Zippopotam.countries.contains(lookup.country) {
                message += " (\(lookup.countryName) is not in the offline data, and Zippopotam.us does not cover it)"
            } else if arguments.has("offline") {
                message += " offline (without --offline, Zippopotam.us is asked too)"
            }
            throw CLIError(code: .dataError, message: message)
        }
        var report: AirReport?
        if arguments.has("air") {
            let first = places[0]
            let fix = Fix(
                coordinate: first.coordinate, source: .manual, horizontalAccuracy: 5000,
                accuracySource: "postal code \(lookup.country) \(first.code)")
            var options = try ReportOptions.parse(
                arguments, configuration: context.configuration, command: spec.name)
            options.format = arguments.has("json") ? .json : .text
            report = await AirReport.make(
                fix: fix, provider: "postal", attempts: [], accuracy: .full, context: context,
                configuration: context.configuration, gazetteer: gazetteer, options: options,
                chosenPlace: first.place(in: gazetteer))
        }
        let output = PostalOutput(lookup: lookup, places: places, failure: failure, gazetteer: gazetteer)
        if arguments.has("json") {
            context.console.out(JSONDocument.encode(output.json(report: report)))
        } else {
            context.console.out(output.text(console: context.console))
            if let report {
                context.console.out("\n" + ReportText(console: context.console).render(report))
            }
        }
        if let report { return AirReport.exitCode(for: report, console: context.console) }
        return .ok
    }
}

/// A country and code as typed, checked and normalised.
struct PostalLookup {
    var country: String
    var countryName: String
    /// The normalised code as the user gave it ("SW1A 1AA").
    var code: String
    /// What the offline data is searched with (ZIP+4 → ZIP).
    var key: String
    /// What Zippopotam.us is asked for (GB outward code, ...).
    var onlineCode: String

    init(country text: String, code typed: String, gazetteer: Gazetteer, command: String) throws(CLIError) {
        guard let country = gazetteer.countryCode(named: text) else {
            throw .usage(
                "unknown country '\(text.prefix(40))': use an ISO code (US, DEU) or an English name", command: command)
        }
        self.country = country
        countryName = gazetteer.countryName(code: country) ?? country
        let format = gazetteer.postalFormat(countryCode: country)
        switch PostalCode.check(typed, regex: format?.regex ?? "", country: country) {
        case .success(let code):
            self.code = code
        case .failure(let problem):
            throw CLIError(code: .dataError, message: Self.explain(problem, country: country, format: format))
        }
        key = PostalCode.outward(code, country: country == "US" ? "US" : "")
        onlineCode = PostalCode.outward(code, country: country)
    }

    /// "US codes are 5 digits, or #####-#### (00501–99950 in the offline data)".
    static func explain(_ problem: PostalCode.Problem, country: String, format: PostalFormat?) -> String {
        var expected = ""
        if let format, let described = PostalCode.describe(format: format.format) {
            expected = "\(country) codes are \(described)"
        } else {
            expected = "see 'airloc postal --countries' for \(country)'s format"
        }
        if let first = format?.first, let last = format?.last { expected += " (\(first)–\(last) in the offline data)" }
        switch problem {
        case .empty: return "the postal code is empty; \(expected)"
        case .tooLong(let length):
            return "a postal code has at most \(PostalCode.maximumLength) characters, this one \(length); \(expected)"
        case .characters(let bad):
            return
                "a postal code has only letters, digits, spaces and hyphens, not \(String(reflecting: bad)); \(expected)"
        case .format: return "not a valid \(country) postal code: \(expected)"
        }
    }
}

extension PostalPlace {
    /// Offline places first; an online place that is the same (same name, within 5 km)
    /// marks its offline twin "offline+online" instead of appearing twice.
    static func merge(offline: [PostalPlace], online: [PostalPlace]) -> [PostalPlace] {
        var merged = offline
        for place in online {
            if let twin = merged.firstIndex(where: {
                $0.source == "offline" && $0.placeName == place.placeName
                    && $0.coordinate.distance(to: place.coordinate) < 5000
            }) {
                merged[twin].source = "offline+online"
            } else {
                merged.append(place)
            }
        }
        return merged
    }
}
