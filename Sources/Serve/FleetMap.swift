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
/// them, keeping each run's last, and finds each point's readings: the page holds no more
/// than the points, however long the window).
enum FleetMap {
    static let grey = "#9E9E9E"

    static func json(_ points: [FleetTrackPoint], decimals: Int?) -> String {
        let format = "%.\(decimals ?? 6)f"
        let shown = points.map { point -> String in
            let colour = colourAt(point.time, model: point.model, measured: point.measured)
            let at = decimals == nil ? point.coordinate : point.coordinate.rounded(toDegrees: ServedPosition.grid)
            return "[\(String(format: format, at.latitude)),\(String(format: format, at.longitude)),"
                + "\(ServedReplies.quoted(point.segment)),\"\(colour)\"]"
        }
        return "{\"points\":[\(shown.joined(separator: ","))],\"places\":[]}\n"
    }

    static func colourAt(_ time: Date, model: FleetTrackPoint.Reading?, measured: FleetTrackPoint.Reading?) -> String {
        if let measured, time.timeIntervalSince(measured.time) <= FleetLast.measuredFor {
            return AQICategory(aqi: measured.aqi).color
        }
        if let model, time.timeIntervalSince(model.time) < FleetDatabase.modelFor {
            return AQICategory(aqi: model.aqi).color
        }
        return grey
    }
}
