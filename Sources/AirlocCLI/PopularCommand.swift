import Airloc
import Arguments
import Gazetteer
import Geo
import TerminalUI

/// `airloc popular`: the seeds' curated list of popular cities, each with its local time.
enum PopularCommand {
    static let spec = CommandSpec(
        name: "popular", summary: "List popular cities with their local time (offline)",
        discussion: """
            The search sheet's list when nothing is typed yet: \(PopularPlaces.cities.joined(separator: ", ")).
            Each is the most populous place of that name in the built-in data.
            """,
        options: [.json.saying("print JSON (schema airloc.popular/1, docs/json-schema.md)")])

    static let command = Command(spec: spec) { context throws(CLIError) in try run(context) }

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let gazetteer = try context.loadGazetteer()
        let document = PopularPlaces.Document(gazetteer)
        guard !document.places.isEmpty else {
            throw CLIError(code: .dataError, message: "none of the popular cities is in the place data")
        }
        if context.arguments.has(.json) {
            context.console.out(JSONDocument.encode(document))
            return .ok
        }
        context.console.out(PlaceText(console: context.console).render(popular: document))
        return .ok
    }
}
