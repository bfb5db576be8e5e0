import Airloc
import FleetWire
import Foundation
import Geo
import Logbook
import Settings

/// What `[serve] position` lets anything served carry: the one place every route of the
/// device's page and of the fleet's page asks (docs/serve.md, docs/privacy.md).
///
/// Contract:
/// - `exact`: the logbook's coordinates (6 decimals), altitude, speed and course.
/// - `coarse`: every coordinate on the 0.01° grid (2 decimals), never altitude, speed or
///   course; the report is made from the grid point, so a place's distance and bearing are
///   from the grid point too and say nothing finer than the grid.
/// - `none`: no coordinate, no track (no map, and the day's figure without its map panel),
///   no altitude, speed or course, and a place by its name alone: no id, no distance, no
///   bearing, no coordinates, no "3.2 km NE of …" — nothing from which the position could
///   be worked out more finely than the name says.
public struct ServedPosition: Sendable, Equatable {
    /// `[serve] position`.
    public let mode: MQTTSettings.Position

    /// The grid of `coarse`, degrees.
    public static let grid = ServeSettings.coarseGrid

    /// The position served as `mode` says.
    public init(_ mode: MQTTSettings.Position) { self.mode = mode }

    /// `coordinate` as it may be shown (nil with `none`).
    public func shown(_ coordinate: Coordinate) -> Coordinate? {
        switch mode {
        case .exact: return coordinate
        case .coarse: return coordinate.rounded(toDegrees: Self.grid)
        case .none: return nil
        }
    }

    /// The decimals a shown coordinate carries.
    var decimals: Int { mode == .coarse ? 2 : 6 }

    /// Whether a track (points in time) may be served: the map, `/api/track`, the figure's map.
    var showsTrack: Bool { mode != .none }

    /// Whether altitude, speed and course may be served.
    var showsMotion: Bool { mode == .exact }

    /// The grid a served track's coordinates are put on (nil: as logged).
    var trackGrid: Double? { mode == .coarse ? Self.grid : nil }

    /// The refusal of a track with `none`.
    static let noTrack = "[serve] position = none: no track is served"

    /// A logbook row's NDJSON line as it may be served (nil: not at all).
    func line(_ row: Logbook.OutboxRow) -> String? { row.line(showing: mode, grid: Self.grid) }

    /// `/api/now`'s document (`airloc.report/1`) as it may be served: with `none`, every
    /// coordinate, altitude, speed and course null, and the place by its name alone.
    func nowDocument(_ report: AirReport) -> String {
        let text = JSONDocument.encode(ReportJSON(report), pretty: false)
        guard mode == .none,
            let document = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
            let data = try? JSONSerialization.data(
                withJSONObject: Self.withoutPosition(document), options: [.sortedKeys])
        else { return text + "\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// The keys that hold a position, at any depth of a document.
    static let positionKeys: Set<String> = [
        "latitude", "longitude", "altitude_hae_m", "altitude_msl_m", "speed_m_s", "track_deg",
    ]

    /// `object` with every position key null, and each place (an object with a
    /// `display_name`) without what locates it: id, distance, bearing; its description is its
    /// name.
    static func withoutPosition(_ object: [String: Any]) -> [String: Any] {
        var copy: [String: Any] = [:]
        for (key, value) in object {
            if positionKeys.contains(key) {
                copy[key] = NSNull()
            } else if let nested = value as? [String: Any] {
                copy[key] = withoutPosition(nested)
            } else if let list = value as? [Any] {
                copy[key] = list.map { ($0 as? [String: Any]).map(withoutPosition) ?? $0 }
            } else {
                copy[key] = value
            }
        }
        if let name = copy["display_name"] as? String, copy["distance_km"] != nil {
            copy["id"] = NSNull()
            copy["distance_km"] = NSNull()
            copy["bearing_deg"] = NSNull()
            copy["description"] = name
        }
        return copy
    }

    /// A report's place as the card says it: with `none`, its name, never "3.2 km NE of …".
    func placeText(_ report: AirReport) -> String? {
        report.place?.place.displayName
    }
}
