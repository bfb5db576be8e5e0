import Airloc
import FleetWire
import Foundation

/// `GET /api/now`: `now --json`'s document (`airloc.report/1`), made from the logbook.
///
/// Contract: with `position = none` every coordinate in it is null (the place's name
/// stays: it is what the card shows); `exact` and `coarse` are already in the report's fix.
enum NowDocument {
    static func json(_ report: AirReport, position: MQTTSettings.Position) -> String {
        let text = JSONDocument.encode(ReportJSON(report), pretty: false)
        guard position == .none,
            var document = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        else { return text + "\n" }
        document = withoutPositions(document)
        guard let data = try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]) else {
            return "{}\n"
        }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// The document with every latitude, longitude and altitude null, at any depth.
    static func withoutPositions(_ object: [String: Any]) -> [String: Any] {
        let hidden: Set<String> = [
            "latitude", "longitude", "altitude_hae_m", "altitude_msl_m", "speed_m_s", "track_deg",
        ]
        var copy: [String: Any] = [:]
        for (key, value) in object {
            if hidden.contains(key) {
                copy[key] = NSNull()
            } else if let nested = value as? [String: Any] {
                copy[key] = withoutPositions(nested)
            } else if let list = value as? [Any] {
                copy[key] = list.map { ($0 as? [String: Any]).map(withoutPositions) ?? $0 }
            } else {
                copy[key] = value
            }
        }
        return copy
    }
}
