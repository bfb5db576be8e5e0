import Foundation
import Gazetteer
import Geo

/// `airloc reverse LAT LON`: the nearest populated place, offline.
enum ReverseCommand {
    static let spec = CommandSpec(
        name: "reverse", summary: "Name the nearest populated place to a coordinate (offline)",
        usage: "LAT LON [--json]",
        discussion: "Looks the coordinate up in the built-in GeoNames data; nothing is sent anywhere.",
        options: [.flag("json", "print JSON: {\"place\": {...}, \"distance_km\", \"bearing_deg\", \"description\"}")],
        maxPositionals: 2)

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
        let gazetteer = try DataLocator.loadGazetteer(environment: context.environment)
        guard let nearest = gazetteer.locality(for: coordinate) else {
            throw CLIError(code: .dataError, message: "the place data is empty")
        }
        if context.arguments.has("json") {
            let p = nearest.place
            let object: [String: Any] = [
                "query": ["latitude": coordinate.latitude, "longitude": coordinate.longitude],
                "place": [
                    "id": p.id, "name": p.name, "admin1": p.admin1, "country": p.country,
                    "country_code": p.countryCode, "display_name": p.displayName, "timezone": p.timezone,
                    "population": p.population, "latitude": p.coordinate.latitude,
                    "longitude": p.coordinate.longitude, "feature_code": p.featureCode,
                ],
                "distance_km": (nearest.distance / 10).rounded() / 100,
                "bearing_deg": nearest.bearing.rounded(),
                "description": nearest.relativeDescription,
            ]
            let data =
                (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])) ?? Data()
            context.console.out(String(decoding: data, as: UTF8.self) + "\n")
        } else {
            context.console.out("\(nearest.place.displayName)\n")
            context.console.out(
                "  \(nearest.relativeDescription) · \(nearest.place.timezone)\n")
        }
        return .ok
    }
}
