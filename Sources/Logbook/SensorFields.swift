import Foundation
import Geo
import Sensors

/// A sensor row's fields in each export format (``LogFields`` has the rules).
extension LogFields {
    static func sensorValues(_ r: SensorRecord) -> [(String, Value)] {
        let v = r.values
        return [
            ("id", .text("s\(r.id)")), ("kind", .text("sensor")), ("time", .text(time(r.time))),
            ("latitude", .number(number(r.coordinate?.latitude))),
            ("longitude", .number(number(r.coordinate?.longitude))), ("time_source", .text(r.timeSource)),
            ("model", .text(r.model)), ("serial", .text(r.serial)), ("pm1_0", .number(number(v.pm1_0))),
            ("pm2_5", .number(number(v.pm2_5))), ("pm4_0", .number(number(v.pm4_0))),
            ("pm10", .number(number(v.pm10))), ("pm2_5_cf1", .number(number(v.pm2_5CF1))),
            ("temperature_c", .number(number(v.temperatureC))),
            ("relative_humidity", .number(number(v.relativeHumidity))),
            ("samples", .number(String(r.samples))), ("window_s", .number(number(r.windowSeconds))),
            ("us_aqi", .number(r.usAQI.map(String.init))), ("corrected_pm2_5", .number(number(r.correctedPM2_5))),
            ("flags", .text(r.flags.joined(separator: " "))), ("segment", .number(r.segment.map(String.init))),
        ]
    }

    /// A sensor row's line; without `position` its latitude and longitude are null.
    static func sensorJSON(_ record: SensorRecord, position: Bool = true) -> String {
        var fields = sensorValues(record)
        if !position {
            for index in fields.indices where ["latitude", "longitude"].contains(fields[index].0) {
                fields[index].1 = .number(nil)
            }
        }
        return json(fields)
    }

    static let placeholderSensor = SensorRecord(
        id: 0, time: Date(timeIntervalSince1970: 0), timeSource: "system", coordinate: nil, model: "", serial: nil,
        values: ParticulateValues(pm2_5: 0, pm10: 0), samples: 0, windowSeconds: 0, usAQI: nil, correctedPM2_5: nil,
        flags: [], segment: nil)

    static let sensorColumns: [Int?] = {
        let names = sensorValues(placeholderSensor).map(\.0)
        return csvColumns.map { names.firstIndex(of: $0) }
    }()

    /// A waypoint (where the reading was made; none without a fix).
    static func gpxSensorWaypoint(_ r: SensorRecord) -> String? {
        guard let coordinate = r.coordinate else { return nil }
        var text = "  <wpt lat=\"\(number(coordinate.latitude)!)\" lon=\"\(number(coordinate.longitude)!)\">"
        text += "<time>\(time(r.time))</time>"
        text += "<name>\(xml("PM2.5 \(number(r.values.pm2_5)!) µg/m³ measured"))</name>"
        text += "<extensions><airloc:sensor"
        for (name, value) in sensorValues(r) where !["id", "kind", "time", "latitude", "longitude"].contains(name) {
            switch value {
            case .number(let v?), .text(let v?): text += " \(name)=\"\(xml(v))\""
            default: break
            }
        }
        return text + " id=\"s\(r.id)\"/></extensions></wpt>\n"
    }

    /// A Point feature (a null geometry without a fix, as RFC 7946 allows).
    static func geojsonSensorPoint(_ r: SensorRecord) -> String {
        let geometry = r.coordinate.map {
            "{\"type\":\"Point\",\"coordinates\":[\(number($0.longitude)!),\(number($0.latitude)!)]}"
        }
        return "{\"type\":\"Feature\",\"geometry\":\(geometry ?? "null"),\"properties\":" + sensorJSON(r) + "}"
    }
}
