import FleetWire
import Foundation
import Geo
import Readings

/// A sensor row's fields in each export format (``LogFields`` has the rules).
extension LogFields {
    /// A sensor row's fields, named and ordered by ``SensorField``.
    static func sensorValues(_ r: SensorRecord) -> [(String, Value)] {
        SensorField.allCases.map { ($0.rawValue, value($0, of: r)) }
    }

    static func value(_ field: SensorField, of r: SensorRecord) -> Value {
        let v = r.particulate
        switch field {
        case .id: return .text("s\(r.id)")
        case .kind: return .text(RowKind.sensor.rawValue)
        case .time: return .text(time(r.time))
        case .latitude: return .number(number(r.coordinate?.latitude))
        case .longitude: return .number(number(r.coordinate?.longitude))
        case .timeSource: return .text(r.timeSource)
        case .model: return .text(r.model)
        case .serial: return .text(r.serial)
        case .pm1_0: return .number(number(v?.pm1_0))
        case .pm2_5: return .number(number(v?.pm2_5))
        case .pm4_0: return .number(number(v?.pm4_0))
        case .pm10: return .number(number(v?.pm10))
        case .pm2_5CF1: return .number(number(v?.pm2_5CF1))
        case .temperature: return .number(number(r.temperatureC))
        case .humidity: return .number(number(r.relativeHumidity))
        case .samples: return .number(String(r.samples))
        case .window: return .number(number(r.windowSeconds))
        case .usAQI: return .number(r.usAQI.map(String.init))
        case .correctedPM2_5: return .number(number(r.correctedPM2_5))
        case .flags: return .words(r.flags)
        case .segment: return .number(r.segment.map(String.init))
        case .name: return .text(r.name)
        case .co2: return .number(number(r.climate?.co2PPM))
        case .pressure: return .number(number(r.climate?.pressureHPa))
        }
    }

    /// A sensor row's line; without `position` its latitude and longitude are null.
    static func sensorJSON(_ record: SensorRecord, position: Bool = true) -> String {
        json(
            SensorField.allCases.map { field in
                (field.rawValue, !position && field.position ? .number(nil) : value(field, of: record))
            })
    }

    static let placeholderSensor = SensorRecord(
        id: 0, name: "sensor", time: Date(timeIntervalSince1970: 0), timeSource: "system", coordinate: nil, model: "",
        serial: nil, particulate: ParticulateValues(pm2_5: 0, pm10: 0), climate: nil, samples: 0, windowSeconds: 0,
        usAQI: nil, correctedPM2_5: nil, flags: [], segment: nil)

    /// A sensor field's CSV column: the values the model's air rows also carry get a
    /// column of their own (`measured_pm2_5` beside the model's `pm2_5`), so no column
    /// mixes the two.
    static func csvSensorName(_ name: String) -> String {
        [SensorField.pm2_5, .pm10, .usAQI].map(\.rawValue).contains(name) ? "measured_" + name : name
    }

    static let sensorColumns: [Int?] = {
        let names = sensorValues(placeholderSensor).map { csvSensorName($0.0) }
        return csvColumns.map { names.firstIndex(of: $0) }
    }()

    /// A waypoint (where the reading was made; none without a fix).
    static func gpxSensorWaypoint(_ r: SensorRecord) -> String? {
        guard let coordinate = r.coordinate else { return nil }
        var text = "  <wpt lat=\"\(number(coordinate.latitude)!)\" lon=\"\(number(coordinate.longitude)!)\">"
        text += "<time>\(time(r.time))</time>"
        text += "<name>\(xml(waypointName(r)))</name>"
        text += "<extensions><airloc:sensor"
        for (name, value) in sensorValues(r) where !["id", "kind", "time", "latitude", "longitude"].contains(name) {
            switch value {
            case .number(let v?), .text(let v?): text += " \(name)=\"\(xml(v))\""
            case .words(let words) where !words.isEmpty: text += " \(name)=\"\(xml(words.joined(separator: " ")))\""
            default: break
            }
        }
        return text + " id=\"s\(r.id)\"/></extensions></wpt>\n"
    }

    /// What a waypoint is called: the PM2.5 of a particulate reading, a climate reading's
    /// values (`CO₂ 612 ppm, 21.4 °C, 45 %`).
    static func waypointName(_ r: SensorRecord) -> String {
        if let pm2_5 = r.particulate?.pm2_5 { return "PM2.5 \(number(pm2_5)!) µg/m³ measured" }
        let parts = [
            r.climate?.co2PPM.map { "CO₂ \(Int($0.rounded())) ppm" },
            r.temperatureC.map { "\(number(($0 * 10).rounded() / 10)!) °C" },
            r.relativeHumidity.map { "\(Int($0.rounded())) %" },
            r.climate?.pressureHPa.map { "\(number(($0 * 10).rounded() / 10)!) hPa" },
        ].compactMap { $0 }
        return "\(r.name): " + (parts.isEmpty ? "no value" : parts.joined(separator: ", "))
    }

    /// A Point feature (a null geometry without a fix, as RFC 7946 allows).
    static func geojsonSensorPoint(_ r: SensorRecord) -> String {
        let geometry = r.coordinate.map {
            "{\"type\":\"Point\",\"coordinates\":[\(number($0.longitude)!),\(number($0.latitude)!)]}"
        }
        return "{\"type\":\"Feature\",\"geometry\":\(geometry ?? "null"),\"properties\":" + sensorJSON(r) + "}"
    }
}
