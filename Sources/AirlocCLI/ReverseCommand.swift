import Airloc
import Arguments
import Geo
import TerminalUI

/// `airloc reverse LAT LON`: the populated place a coordinate is in or near, offline.
enum ReverseCommand {
    static let spec = CommandSpec(
        name: "reverse", summary: "Name the place at a coordinate: \"3 km NE of Erding\" (offline)",
        operands: "LAT LON",
        discussion: """
            Looks the coordinate up in the built-in GeoNames data; nothing is sent anywhere.
            LAT and LON are decimal degrees (-90..90, -180..180); a negative value may be
            written after "--" (airloc reverse -- -33.87 151.21). Farther than \(Int(ReverseJSON.reach / 1000)) km from
            any populated place (out at sea, the empty Arctic) the answer says so and names
            the nearest one. Exit status: 0 answered, 64 invalid coordinate.
            """,
        options: [.json.saying("print JSON (schema airloc.reverse/1, docs/json-schema.md)")],
        maxPositionals: 2)

    /// Beyond this distance a point is "not in or near" any place.
    static let command = Command(spec: spec) { context throws(CLIError) in try run(context) }

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let positionals = context.arguments.positionals
        guard positionals.count == 2 else {
            throw .usage("expected LAT and LON, e.g. 'airloc reverse 52.52 13.40'", command: spec.name)
        }
        guard
            let coordinate = try CoordinateArguments.parse(
                latitude: positionals[0], longitude: positionals[1], command: spec.name)
        else { throw .usage("expected LAT and LON", command: spec.name) }
        let gazetteer = try context.loadGazetteer()
        guard let nearest = gazetteer.reverse(coordinate) else {
            throw CLIError(code: .dataError, message: "the place data is empty")
        }
        let document = ReverseJSON(nearest, query: coordinate)
        if context.arguments.has(.json) {
            context.console.out(JSONDocument.encode(document))
            return .ok
        }
        context.console.out(PlaceText(console: context.console).render(nearest, reverse: document))
        return .ok
    }
}
