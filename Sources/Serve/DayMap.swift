import AirQuality
import Airloc
import Foundation
import Gazetteer
import Geo
import Logbook
import Platform
import Plot

/// `GET /api/map`: what the page's map draws — the window's track, each point with the
/// colour of the AQI in force (``TrackColours``), and the gazetteer's places near it, so
/// that a map without tiles still says where it is.
///
/// Contract: `{"points": [[lat, lon, segment, "#RRGGBB"], …], "places": [{"name", "lat",
/// "lon"}]}`, positions as `[serve] position` allows (with `none`: both lists empty);
/// at most 5,000 points and 12 places.
struct DayMap {
    let source: DeviceSource

    func json(_ logbook: Logbook, window: LogWindow, next: String? = nil) -> String {
        guard source.position.showsTrack,
            let points = try? TrackColours.points(logbook, window: window, scale: source.settings.scale)
        else { return "{\"points\":[],\"places\":[]}\n" }
        let link = next.map { ",\"next\":" + JSONDocument.encode($0, pretty: false) } ?? ""
        let decimals = source.position.decimals
        func number(_ value: Double) -> String { String(format: "%.\(decimals)f", value) }
        var shown: [String] = []
        var places: [String: Coordinate] = [:]
        var order: [String] = []
        let every = max(1, points.count / 24)
        for (offset, point) in points.enumerated() {
            guard let coordinate = source.position.shown(point.coordinate) else { continue }
            shown.append(
                "[\(number(coordinate.latitude)),\(number(coordinate.longitude)),\(point.segment),\"\(point.colour)\"]")
            if offset % every == 0 || offset == points.count - 1, order.count < 12,
                let place = source.gazetteer.locality(for: point.coordinate), place.distance < 25_000
            {
                let name = place.place.name
                if places[name] == nil {
                    places[name] = place.place.coordinate
                    order.append(name)
                }
            }
        }
        let names = order.map { name in
            let at = places[name]!
            return
                "{\"name\":\(JSONDocument.encode(name, pretty: false)),\"lat\":\(number(at.latitude)),\"lon\":\(number(at.longitude))}"
        }
        return "{\"points\":[\(shown.joined(separator: ","))],\"places\":[\(names.joined(separator: ","))]\(link)}\n"
    }
}
