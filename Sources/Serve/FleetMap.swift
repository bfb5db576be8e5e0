import AirQuality
import FleetStore
import Foundation
import Geo

/// `GET /api/map?device=ID` on the fleet page: what the map draws of one device's day, in
/// the device page's format (``DayMap``): `{"points": [[lat, lon, run, "#RRGGBB"], …],
/// "places": []}`.
///
/// Contract: each point has the colour of the US AQI in force there and then: the device's
/// particulate reading when one was at most ``FleetLast/measuredFor`` seconds old, else its
/// model hour (for at most two hours), else grey; at most 5,000 points (the query thins
/// them, keeping each run's last).
enum FleetMap {
    static let grey = "#9E9E9E"

    static func json(
        _ points: [FleetTrackPoint], history: (model: [(Date, Int)], measured: [(Date, Int)]), decimals: Int?
    ) -> String {
        var model = history.model[...]
        var measured = history.measured[...]
        var modelNow: (Date, Int)?
        var measuredNow: (Date, Int)?
        let format = "%.\(decimals ?? 6)f"
        let shown = points.map { point -> String in
            // Both series and the points are in time order: one walk colours them all.
            while let next = model.first, next.0 <= point.time {
                modelNow = next
                model = model.dropFirst()
            }
            while let next = measured.first, next.0 <= point.time {
                measuredNow = next
                measured = measured.dropFirst()
            }
            let colour = colourAt(point.time, model: modelNow, measured: measuredNow)
            let at = decimals == nil ? point.coordinate : point.coordinate.rounded(toDegrees: ServedPosition.grid)
            return "[\(String(format: format, at.latitude)),\(String(format: format, at.longitude)),"
                + "\(ServedReplies.quoted(point.segment)),\"\(colour)\"]"
        }
        return "{\"points\":[\(shown.joined(separator: ","))],\"places\":[]}\n"
    }

    static func colourAt(_ time: Date, model: (Date, Int)?, measured: (Date, Int)?) -> String {
        if let measured, time.timeIntervalSince(measured.0) <= FleetLast.measuredFor {
            return AQICategory(aqi: measured.1).color
        }
        if let model, time.timeIntervalSince(model.0) < 7200 { return AQICategory(aqi: model.1).color }
        return grey
    }
}
