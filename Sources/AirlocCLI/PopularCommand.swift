import Airloc
import Arguments
import Gazetteer
import Geo

/// `airloc popular`: the seeds' curated list of popular cities, each with its local time.
enum PopularCommand {
    /// Seed 000's list, in its order.
    static let cities = [
        "New York", "Los Angeles", "Chicago", "London", "Paris", "Tokyo", "Berlin", "Toronto", "Sydney", "Dubai",
    ]

    static let spec = CommandSpec(
        name: "popular", summary: "List popular cities with their local time (offline)",
        discussion: """
            The search sheet's list when nothing is typed yet: \(cities.joined(separator: ", ")).
            Each is the most populous place of that name in the built-in data.
            """,
        options: [.json.saying("print JSON (schema airloc.popular/1, docs/json-schema.md)")])

    static let command = Command(spec: spec) { context throws(CLIError) in try run(context) }

    struct PopularJSON: Encodable {
        var schema = "airloc.popular/1"
        var places: [SearchResultJSON]
    }

    /// The curated places found in `gazetteer` (a custom data set may lack some).
    static func places(in gazetteer: Gazetteer) -> [Place] {
        cities.compactMap { gazetteer.place(named: $0) }
    }

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let gazetteer = try context.loadGazetteer()
        let results = places(in: gazetteer).map {
            SearchResultJSON(place: $0, match: "curated", typos: 0, matchedName: nil, source: "offline", distance: nil)
        }
        guard !results.isEmpty else {
            throw CLIError(code: .dataError, message: "none of the popular cities is in the place data")
        }
        if context.arguments.has(.json) {
            context.console.out(JSONDocument.encode(PopularJSON(places: results)))
            return .ok
        }
        let console = context.console
        for result in results {
            let name = result.displayName.padding(toLength: 42, withPad: " ", startingAt: 0)
            let local = LocalTime(timezone: result.timezone)
            let time = local.map { "\($0.clock)  \($0.shortOffset)" } ?? ""
            console.out(console.bold(name) + " " + console.dim(time) + "\n")
        }
        return .ok
    }
}
