import Airloc
import FleetWire
import Foundation
import Gazetteer
import Geo
import HTTPService
import Settings
import Testing

@testable import Serve

/// `[serve] position` as a promise about everything served: every route of the device's
/// page under `exact`, `coarse` and `none`, compared.
@Suite struct ServedPositionTests {
    /// Every route, and what it answers under one mode.
    static let paths = ["/", "/api/now", "/api/status", "/api/track", "/api/map", "/day.svg", "/metrics", "/data.json"]

    /// Every route's answer under each mode, over the same rows at the same moment.
    static func answers() async throws -> [MQTTSettings.Position: [String: (Int, String)]] {
        let device = try ServedDevice()
        defer { device.remove() }
        var answers: [MQTTSettings.Position: [String: (Int, String)]] = [:]
        for mode in MQTTSettings.Position.allCases {
            let routes = try device.routes(position: mode)
            for path in paths {
                let reply = try await device.get(path, routes)
                answers[mode, default: [:]][path] = (reply.status, reply.text)
            }
        }
        return answers
    }

    /// A JSON document as path → value, for a key-by-key comparison.
    static func flattened(_ value: Any, at path: String = "") -> [String: String] {
        if let object = value as? [String: Any] {
            return object.reduce(into: [:]) { $0.merge(flattened($1.value, at: path + "." + $1.key)) { a, _ in a } }
        }
        if let list = value as? [Any] {
            return list.enumerated().reduce(into: [:]) {
                $0.merge(flattened($1.element, at: path + "[\($1.offset)]")) { a, _ in a }
            }
        }
        return [path: "\(value)"]
    }

    static func json(_ text: String) -> Any { (try? JSONSerialization.jsonObject(with: Data(text.utf8))) ?? [:] }

    @Test func noneServesNothingThePositionCanBeWorkedOutFrom() async throws {
        let answers = try await Self.answers()
        let (exact, none) = (answers[.exact]!, answers[.none]!)
        let berlin = ServedDevice.berlin
        // The coordinate to 2 decimals and more, in any route.
        for (path, answer) in none {
            for digits in ["52.52", "13.40", "13.4,", "13.4\n", "13.4]", "52.5200"] {
                #expect(!answer.1.contains(digits), "\(path) holds \(digits): \(answer.1.prefix(400))")
            }
        }
        // /api/now: the same keys; only what locates the device differs, and that is null.
        let before = Self.flattened(Self.json(exact["/api/now"]!.1))
        let after = Self.flattened(Self.json(none["/api/now"]!.1))
        #expect(Set(before.keys) == Set(after.keys), "the document keeps its shape")
        let changed = before.keys.filter { before[$0] != after[$0] }.sorted()
        let allowed = [
            "latitude", "longitude", "altitude_msl_m", "altitude_hae_m", "speed_m_s", "track_deg",
            "id", "distance_km", "bearing_deg", "description",
        ]
        #expect(changed.allSatisfy { key in allowed.contains { key.hasSuffix("." + $0) } }, "\(changed)")
        let place = (Self.json(none["/api/now"]!.1) as? [String: Any])?["place"] as? [String: Any] ?? [:]
        #expect(place["id"] is NSNull && place["distance_km"] is NSNull && place["bearing_deg"] is NSNull, "\(place)")
        #expect(
            place["name"] as? String == "Berlin" && place["description"] as? String == place["display_name"] as? String)
        // No track: /api/track refused, the map empty, the day's figure without its map.
        #expect(none["/api/track"]!.0 == 404)
        #expect(none["/api/map"]!.1 == "{\"points\":[],\"places\":[]}\n")
        let figure = none["/day.svg"]!.1
        #expect(figure.contains("positions are not shown here"), "\(figure.prefix(300))")
        for mark in ["<polyline", "id=\"start\"", "id=\"end\"", "id=\"scale\"", "id=\"north\""] {
            #expect(exact["/day.svg"]!.1.contains(mark), "the exact figure draws \(mark)")
            #expect(!figure.contains(mark), "the figure draws \(mark) under none")
        }
        #expect(exact["/day.svg"]!.1.count > figure.count, "the map panel is what is left out")
        // Still served: the air.
        #expect(none["/metrics"]!.1.contains("airloc_pm2_5{source=\"measured\"} 40.2"))
        _ = berlin
    }

    @Test func coarseServesNothingFinerThanItsGrid() async throws {
        let coarse = try await Self.answers()[.coarse]!
        for (path, answer) in coarse {
            for digits in ["52.520", "13.404", "13.405", "52.5200"] {
                #expect(!answer.1.contains(digits), "\(path) holds \(digits)")
            }
        }
        // The place's distance and bearing are from the grid point, as anyone with the grid
        // point could work them out: they add nothing to it.
        let gazetteer = try ServedDevice.gazetteer.get()
        let grid = ServedDevice.berlin.rounded(toDegrees: ServedPosition.grid)
        let locality = try #require(gazetteer.locality(for: grid))
        let place = (Self.json(coarse["/api/now"]!.1) as? [String: Any])?["place"] as? [String: Any] ?? [:]
        let distance = try #require(place["distance_km"] as? Double)
        #expect(abs(distance - locality.distance / 1000) < 0.01, "\(place) from \(grid)")
    }

    /// What is served under each mode comes from one place, whatever the route.
    @Test func everyDecisionIsTheServedPositions() {
        let coordinate = ServedDevice.berlin
        #expect(ServedPosition(.exact).shown(coordinate) == coordinate)
        #expect(ServedPosition(.coarse).shown(coordinate) == Coordinate(uncheckedLatitude: 52.52, longitude: 13.40))
        #expect(ServedPosition(.none).shown(coordinate) == nil)
        #expect(ServedPosition(.none).showsTrack == false && ServedPosition(.coarse).showsMotion == false)
    }
}
