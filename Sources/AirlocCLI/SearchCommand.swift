import Airloc
import Arguments
import Gazetteer
import Geo
import Settings
import TerminalUI

/// `airloc search QUERY`: places, regions and countries by name, offline, as you type.
enum SearchCommand {
    static let spec = CommandSpec(
        name: "search", summary: "Find places by name: typo-tolerant, offline (online with --online)",
        operands: "QUERY...",
        discussion: """
            QUERY is matched against every name of every place with population ≥ 500, admin-1
            region and country, ignoring case, accents and punctuation ("koln" finds Köln); a
            query may be the beginning of a name ("New Y"), carry typos ("Londn", "Amsterdm":
            1 from 4 characters, 2 from 8) or a qualifier ("Paris, France", "Springfield IL",
            "Portland, OR"). Names in the user's manual location's area (or --near) come first
            among namesakes. At least 2 characters.

            Offline first; when nothing matches offline, or with --online, Open-Meteo's
            geocoding is asked too (the query text is sent, never your location), and its
            results are merged by GeoNames id. --offline never uses the network.
            Exit status: 0 results found, 1 no results, 64 usage (e.g. a 1-character query).
            """,
        options: [
            .limit,
            .country,
            .near,
            .json.saying("print JSON (schema airloc.search/1, docs/json-schema.md)"),
            .online.saying("also ask Open-Meteo geocoding, even when offline data has answers").orNext(),
            .offline,
        ],
        maxPositionals: nil)

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let query = arguments.positionals.joined(separator: " ")
        guard !query.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            // On a terminal, no query opens the picker; a script gets a usage error.
            if context.console.isInteractive && !arguments.has(.json) { return try await PickCommand.run(context) }
            throw .usage("expected a place name to search for, e.g. 'airloc search Paris'", command: spec.name)
        }
        guard query.utf8.count <= 1000 else {
            throw .usage("the query is \(query.utf8.count) bytes long; place names are under 200", command: spec.name)
        }
        if arguments.has(.online) && arguments.has(.offline) {
            throw .usage("--online and --offline contradict each other", command: spec.name)
        }
        let limit = arguments.value(.limit, as: Int.self) ?? 10
        let near = try nearOption(arguments.value(.near), configuration: context.configuration)
        let gazetteer = try context.loadGazetteer()
        var options = SearchOptions(limit: limit, near: near)
        if let country = arguments.value(.country) {
            let code = try countryCode(country, in: gazetteer)
            options.countryCode = code
        }
        guard Gazetteer.isSearchable(query) else {
            let reason = "type at least \(Gazetteer.minimumQueryLength) letters or digits to search"
            if arguments.has(.json) {
                var document = SearchJSON(query: query, results: [], reason: "query_too_short", online: nil)
                document.error = JSONError(code: Int(ExitCode.usage.rawValue), message: reason)
                context.console.out(JSONDocument.encode(document))
                context.console.err("Error: \(reason)\n")
                return .usage
            }
            throw .usage(reason, command: spec.name)
        }
        let offline = gazetteer.search(query, options: options)
        var results = offline.map { SearchResultJSON($0, source: .offline) }
        var online: OnlineSearchJSON?
        let wantOnline = arguments.has(.online) || (offline.isEmpty && !arguments.has(.offline))
        if wantOnline {
            let outcome = await OnlineSearch.run(
                query: query, limit: options.limit, countryCode: options.countryCode, near: options.near,
                configuration: context.configuration)
            online = outcome.json
            results = OnlineSearch.merge(offline: results, online: outcome.results, limit: limit)
        }
        // Nothing found and the online search failed: that is not "no such place" (1) but
        // "could not ask" — 75 when trying later helps (429, 5xx, timeout), else 69.
        var code = ExitCode.ok
        if results.isEmpty {
            switch online?.status {
            case .unavailable?: code = .tempFail
            case .failed?: code = .unavailable
            default: code = .noMatch
            }
        }
        let failure =
            code == .tempFail || code == .unavailable
            ? "online search \(online?.status.description ?? ""), and nothing matched offline: \(online?.message ?? "")"
            : nil
        if arguments.has(.json) {
            var document = SearchJSON(
                query: query, results: results, reason: results.isEmpty ? "no_results" : nil, online: online)
            document.error = failure.map { JSONError(code: Int(code.rawValue), message: $0) }
            context.console.out(JSONDocument.encode(document))
        } else if failure == nil {
            if let online, online.status != .ok {
                context.console.err("airloc: warning: online search \(online.status): \(online.message ?? "")\n")
            }
            context.console.out(SearchText(console: context.console).render(results, query: query))
        }
        if let failure { context.console.err("Error: \(failure)\n") }
        return code
    }

    static func nearOption(_ text: String?, configuration: Settings) throws(CLIError) -> Coordinate? {
        guard let text else { return configuration.searchCentre }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else {
            throw .usage("--near expects LAT,LON in decimal degrees, e.g. --near 33.52,-86.80", command: spec.name)
        }
        return try CoordinateArguments.parse(latitude: parts[0], longitude: parts[1], command: spec.name)
    }

    static func countryCode(_ text: String, in gazetteer: Gazetteer) throws(CLIError) -> String {
        if text.utf8.count == 2, gazetteer.countryName(code: text) != nil { return text.uppercased() }
        if let code = gazetteer.countryCode(named: text) { return code }
        throw .usage("unknown country '\(text)': use an ISO code (DE, USA) or an English name", command: spec.name)
    }
}
