import Airloc
import Arguments
import Gazetteer
import Geo
import Settings

/// `airloc air PLACE`: the air report for any place, by name, coordinates or postal code.
enum AirCommand {
    static let spec = CommandSpec(
        name: "air", summary: "Show the air quality at a place: by name, coordinates or postal code",
        operands: "PLACE... | --lat DEG --lon DEG | --postal \"CC CODE\"", operandOptions: [.lat, .lon, .postal],
        discussion: """
            PLACE is a place name as in 'airloc search' ("Paris", "Portland, OR", "München");
            the exact name of a place is used, else the best search result (offline). --postal
            takes a country and a code in one argument ("US 90210", "DE 10117"). Nothing about
            this device is sensed or sent; the coordinates sent to Open-Meteo are rounded to
            [privacy] outbound-precision. 'airloc now' is the same report for this device.

            --format line prints one line for status bars and small displays:
            "Berlin 41 Good · PM2.5 8.8 · Birch high · +1.8°C".
            Answers are cached in $XDG_CACHE_HOME/airloc (air quality until the data's next hour);
            when the network fails, an answer up to [cache] max-stale old is shown with a warning.
            After Open-Meteo's rate limit (429) nothing is sent until the time it asked for.
            Exit status: 0 report shown (also from the cache); 75 air data temporarily
            unavailable; 69 the service failed otherwise; 65 no such place or postal code; 64 bad usage.
            """,
        options: CoordinateArguments.specs + [
            .postal
        ] + ReportOptions.specs,
        maxPositionals: nil)

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let options = try ReportOptions.parse(arguments, configuration: context.configuration, command: spec.name)
        let gazetteer = try context.loadGazetteer()
        let (fix, place) = try await target(arguments, gazetteer: gazetteer, configuration: context.configuration)
        let report = await AirReport.make(
            fix: fix, provider: "chosen", attempts: [], accuracy: .full, context: context,
            configuration: context.configuration, gazetteer: gazetteer, options: options, chosenPlace: place)
        options.format.print(report, console: context.console)
        return AirReport.exitCode(for: report, console: context.console)
    }

    /// The chosen point, and the place when one was named: exactly one of a place name,
    /// --lat/--lon or --postal.
    static func target(_ arguments: ParsedArguments, gazetteer: Gazetteer, configuration: Settings)
        async throws(CLIError) -> (Fix, Place?)
    {
        let name = arguments.positionals.joined(separator: " ").trimmingCharacters(in: .whitespaces)
        let coordinate = try CoordinateArguments.parse(arguments, command: spec.name)
        let postal = arguments.value(.postal)
        let given = [!name.isEmpty, coordinate != nil, postal != nil].filter { $0 }.count
        guard given == 1 else {
            throw .usage(
                given == 0
                    ? "give a place, --lat/--lon or --postal (for this device's location: 'airloc now')"
                    : "give only one of a place, --lat/--lon and --postal", command: spec.name)
        }
        if let coordinate {
            return (Fix(coordinate: coordinate, source: .manual, accuracySource: "given coordinates"), nil)
        }
        if let postal {
            guard let (country, code) = PostalSearch.split(postal, gazetteer: gazetteer) else {
                throw .usage("--postal takes a country and a code, e.g. --postal \"US 90210\"", command: spec.name)
            }
            let answer: PostalAnswer
            do {
                answer = try await PostalSearch.places(
                    country: country, code: code, sources: .offlineOnly, gazetteer: gazetteer,
                    settings: configuration)
            } catch {
                if case .noPlace(let lookup, _, _) = error {
                    throw CLIError(
                        code: .dataError,
                        message:
                            "no place found offline for \(lookup.country) \(lookup.code); 'airloc postal' also asks online"
                    )
                }
                throw PostalCommand.error(error, offlineOnly: true)
            }
            guard let fix = answer.fix, let first = answer.places.first else {
                throw CLIError(code: .dataError, message: "no place found offline for \(postal)")
            }
            return (fix, first.place(in: gazetteer))
        }
        guard Gazetteer.isSearchable(name) else {
            throw .usage("a place name needs at least 2 letters or digits", command: spec.name)
        }
        guard let place = gazetteer.place(named: name) ?? gazetteer.search(name, limit: 1).first?.place else {
            throw CLIError(code: .dataError, message: "no place named \"\(name.prefix(80))\"; try 'airloc search'")
        }
        return (Fix(coordinate: place.coordinate, source: .manual, accuracySource: "place \(place.displayName)"), place)
    }
}
