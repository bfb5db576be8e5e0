import Foundation
import Geo
import Logbook
import Readings
import Web

/// The public air maps: sensor.community and openSenseMap, which receive only what the
/// sensors measured, never the model's values.
///
/// Contract:
/// - sensor.community: per particulate reading, a POST to `<url>/v1/push-sensor-data/`
///   with `X-Sensor: raspi-<id>` and `X-Pin: 1`, `P1` = PM10 and `P2` = PM2.5 as strings;
///   with a position allowed, a second POST with `X-Pin: 9` and `lat`, `lon`, and `height`
///   only when an exact upload knows the altitude. A climate reading goes as airrohr sends
///   its sensor family (``climatePin(_:)``); a model airrohr has no pin for is not sent.
/// - openSenseMap: per batch, one POST to `<url>/boxes/<box>/data` of measurements, one
///   per configured `sensor-<value>` a reading has, each with `createdAt` (UTC, `Z`,
///   milliseconds) and `location` ([lon, lat]) when a position is allowed; the box's
///   access token in `Authorization`.
enum MeasuredFormats {
    static func joined(_ base: String, _ path: String) -> URL? {
        URL(string: (base.hasSuffix("/") ? String(base.dropLast()) : base) + path)
    }

    static func outgoing(_ items: [UploadItem], plan: UploadPlan) -> [Outgoing] {
        switch plan.type {
        case .sensorCommunity: return items.flatMap { sensorCommunity($0, plan: plan) }
        case .openSenseMap: return openSenseMap(items, plan: plan).map { [$0] } ?? []
        default: return []
        }
    }

    static func sensorCommunity(_ item: UploadItem, plan: UploadPlan) -> [Outgoing] {
        guard case .measured(let reading) = item.row, let url = joined(plan.url, "/v1/push-sensor-data/") else {
            return []
        }
        func push(pin: Int, _ values: [(String, String)]) -> Outgoing {
            let body: [String: Any] = [
                "software_version": "airloc-\(AirlocVersion.string)",
                "sensordatavalues": values.map { ["value_type": $0.0, "value": $0.1] },
            ]
            return .http(
                HTTPRequest(
                    url: url,
                    headers: ["Content-Type: application/json", "X-Sensor: raspi-\(plan.id)", "X-Pin: \(pin)"],
                    body: Data(PositionFormats.json(body).utf8)))
        }
        guard let particulate = reading.particulate else {
            return climatePin(reading).map { [push(pin: $0.pin, $0.values)] } ?? []
        }
        var requests = [
            push(
                pin: 1, [("P1", UploadItem.number(particulate.pm10)), ("P2", UploadItem.number(particulate.pm2_5))])
        ]
        if let place = item.place {
            // No altitude (a coarse position, or none measured) is no `height`: a "0" would
            // put the station at sea level on the map.
            let height = item.altitude.map { [("height", UploadItem.number($0))] } ?? []
            requests.append(
                push(
                    pin: 9,
                    [("lat", UploadItem.number(place.latitude)), ("lon", UploadItem.number(place.longitude))] + height))
        }
        return requests
    }

    /// A climate reading's pin and values as airrohr's firmware sends its sensor family
    /// (``AirrohrFamily``); nil for a model airrohr has no pin for (docs/uploads.md).
    static func climatePin(_ reading: SensorRecord) -> (pin: Int, values: [(String, String)])? {
        guard let climate = reading.climate, let model = ClimateModel(rawValue: reading.model),
            let family = model.airrohr
        else { return nil }
        let values = family.values(climate, for: model).map {
            ($0.name, UploadItem.number(($0.value * 100).rounded() / 100))
        }
        return values.isEmpty ? nil : (family.pin, values)
    }

    /// The values of a reading openSenseMap may take, by `sensor-<value>` name: a
    /// particulate sensor's by their field names, a climate sensor's as `co2`,
    /// `temperature`, `humidity` and `pressure` (hPa).
    static func values(_ reading: SensorRecord) -> [String: Double] {
        let renamed =
            reading.climate == nil
            ? [:]
            : [
                "co2_ppm": "co2", "temperature_c": "temperature", "relative_humidity": "humidity",
                "pressure_hpa": "pressure",
            ]
        return Dictionary(reading.measuredValues.map { (renamed[$0.key] ?? $0.key, $0.value) }) { first, _ in first }
    }

    static func openSenseMap(_ items: [UploadItem], plan: UploadPlan) -> Outgoing? {
        guard let box = plan.box, let url = joined(plan.url, "/boxes/\(box)/data") else { return nil }
        var measurements: [[String: Any]] = []
        for item in items {
            guard case .measured(let reading) = item.row else { continue }
            for (name, value) in values(reading).sorted(by: { $0.key < $1.key }) {
                guard let sensor = plan.sensors[name] else { continue }
                var measurement: [String: Any] = [
                    "sensor": sensor, "value": UploadItem.number(value),
                    "createdAt": UTCTime(reading.time).text(.millisecond),
                ]
                if let place = item.place { measurement["location"] = [place.longitude, place.latitude] }
                measurements.append(measurement)
            }
        }
        let data = try? JSONSerialization.data(withJSONObject: measurements, options: [.withoutEscapingSlashes])
        return .http(
            HTTPRequest(
                url: url, headers: ["Content-Type: application/json", "Authorization: \(plan.secret ?? "")"],
                body: data ?? Data("[]".utf8)))
    }

    /// For `doctor`: openSenseMap gets an empty batch (the token is checked, nothing is
    /// stored); sensor.community, which has no credentials, a GET of its endpoint.
    static func probe(_ plan: UploadPlan) -> Outgoing? {
        switch plan.type {
        case .openSenseMap:
            guard let box = plan.box, let url = joined(plan.url, "/boxes/\(box)/data") else { return nil }
            return .http(
                HTTPRequest(
                    url: url, headers: ["Content-Type: application/json", "Authorization: \(plan.secret ?? "")"],
                    body: Data("[]".utf8)))
        case .sensorCommunity:
            return joined(plan.url, "/v1/push-sensor-data/").map { .http(HTTPRequest(url: $0)) }
        default: return nil
        }
    }
}
