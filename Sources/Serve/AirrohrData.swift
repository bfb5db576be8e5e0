import Foundation
import Readings
import Web

/// `GET /data.json` as airrohr's firmware serves it, so Home Assistant setups and scripts
/// written for a sensor.community station read airloc unchanged.
///
/// Contract: `{"software_version": "airloc-<version>", "age": "<seconds since the
/// reading>", "sensordatavalues": [{"value_type": …, "value": "<string>"}]}`; the value
/// types are airrohr's for the sensor's family (`SDS_P1`/`SDS_P2`, `PMS_P0`/`P1`/`P2`,
/// `SPS30_P0`/`P1`/`P2`/`P4`; P1 is PM10, P2 PM2.5), PM with two decimals; each
/// `[sensor.NAME]` airrohr reads as its family names it (`BME280_temperature`,
/// `BME280_pressure` in Pa, `SCD30_co2_ppm`: ``AirrohrFamily``); `GPS_lat`,
/// `GPS_lon` and `GPS_height` as `[serve] position` allows. No reading: an empty list.
enum AirrohrData {
    static func json(source: DeviceSource, now: Date) -> String {
        var values: [(String, String)] = []
        var age = ""
        let report = source.now(at: now)
        // A reading past its window is no reading now (a sensor unplugged): airrohr's empty list.
        if case .reading(let reading)? = report?.measured, reading.isFresh {
            age = String(Int(reading.ageSeconds.rounded()))
            let v = reading.sample.mean
            func pm(_ type: String, _ value: Double?) {
                if let value { values.append((type, String(format: "%.2f", value))) }
            }
            switch reading.sample.model.family {
            case .sds011:
                pm("SDS_P1", v.pm10)
                pm("SDS_P2", v.pm2_5)
            case .plantower:
                pm("PMS_P0", v.pm1_0)
                pm("PMS_P1", v.pm10)
                pm("PMS_P2", v.pm2_5)
            case .sps30:
                pm("SPS30_P0", v.pm1_0)
                pm("SPS30_P1", v.pm10)
                pm("SPS30_P2", v.pm2_5)
                pm("SPS30_P4", v.pm4_0)
            }
            if let t = v.temperatureC { values.append(("PMS_temperature", String(format: "%.2f", t))) }
            if let h = v.relativeHumidity { values.append(("PMS_humidity", String(format: "%.2f", h))) }
        }
        for sensor in report?.climateSensors ?? [] {
            guard let family = sensor.model.airrohr, let read = sensor.values else { continue }
            for (name, value) in family.values(read, for: sensor.model) {
                values.append((family.prefix + name, String(format: "%.2f", value)))
            }
            if age.isEmpty { age = String(Int(sensor.ageSeconds.rounded())) }
        }
        if let fix = report?.fix, let shown = source.position.shown(fix.coordinate) {
            let decimals = source.position.decimals
            values.append(("GPS_lat", String(format: "%.\(decimals)f", shown.latitude)))
            values.append(("GPS_lon", String(format: "%.\(decimals)f", shown.longitude)))
            if source.position.showsMotion, let height = fix.altitudeMSL {
                values.append(("GPS_height", String(format: "%.2f", height)))
            }
        }
        let list = values.map { "{\"value_type\":\"\($0.0)\",\"value\":\"\($0.1)\"}" }.joined(separator: ",")
        return
            "{\"software_version\":\"airloc-\(AirlocVersion.string)\",\"age\":\"\(age)\",\"sensordatavalues\":[\(list)]}\n"
    }
}
