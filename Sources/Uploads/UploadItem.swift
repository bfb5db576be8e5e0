import FleetWire
import Foundation
import Geo
import Logbook

/// One row as an upload sends it: a position with the air there (OwnTracks, Traccar), or
/// a measured reading (the public maps), with the place as coarse as the upload allows.
///
/// Contract: ``place`` is the coordinate after the upload's `position` (exact, on the
/// `[privacy] outbound-precision` grid, or nil for `none`); ``accuracy`` claims no better
/// than half a grid cell when coarse; ``altitude`` is only sent exactly.
public struct UploadItem: Sendable {
    /// What the row is.
    public enum Row: Sendable {
        /// A track point, the model's air in force then, and a measured reading of the last 10 minutes.
        case position(TrackPoint, air: AirRecord?, measured: SensorRecord?)
        case measured(SensorRecord)
    }

    /// The row.
    public var row: Row
    /// Its kind.
    public var kind: RowKind
    /// Its number (the cursor moves to it).
    public var id: Int64
    /// When it was made.
    public var time: Date
    /// Where, as coarse as the upload allows (nil: withheld).
    public var place: Coordinate?
    /// The error radius sent, metres.
    public var accuracy: Double?
    /// The altitude sent (exact uploads only), metres.
    public var altitude: Double?

    /// `row` as `plan` sends it.
    public init(_ row: Row, plan: UploadPlan) {
        self.row = row
        let coordinate: Coordinate?
        switch row {
        case .position(let point, _, _):
            (kind, id, time, coordinate) = (.track, point.id, point.time, point.coordinate)
            accuracy = point.accuracy
            altitude = point.altitude
        case .measured(let reading):
            (kind, id, time, coordinate) = (.sensor, reading.id, reading.time, reading.coordinate)
        }
        switch plan.position {
        case .exact: place = coordinate
        case .coarse:
            place = coordinate?.rounded(toDegrees: plan.precision)
            accuracy = max(accuracy ?? 0, plan.precision * 111_195 / 2)
            altitude = nil
        case .none:
            (place, accuracy, altitude) = (nil, nil, nil)
        }
    }

    /// The air values sent beside a position (OwnTracks' extra keys, Traccar's attributes).
    public var airValues: [(String, String)] {
        guard case .position(_, let air, let measured) = row else { return [] }
        var values: [(String, String)] = []
        if let air {
            if let aqi = air.values.usAQI { values.append(("us_aqi", String(aqi))) }
            if let category = air.values.category { values.append(("aqi_category", category)) }
            for name in ["pm2_5", "pm10"] {
                if let value = air.values.pollutants[name] { values.append((name, Self.number(value))) }
            }
        }
        if let measured = measured?.particulate {
            values.append(("pm2_5_measured", Self.number(measured.pm2_5)))
            values.append(("pm10_measured", Self.number(measured.pm10)))
        }
        return values
    }

    /// A number as the shortest text that reads back as the same value (a coordinate keeps
    /// every digit it has; the grid's are short anyway).
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
