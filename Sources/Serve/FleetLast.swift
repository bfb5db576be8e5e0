import AirQuality
import FleetStore
import Foundation
import Geo
import HTTPService
import Platform
import Settings

/// `GET /api/last` and the fleet's `/metrics`: each device's latest position and air.
///
/// Contract (docs/fleet.md, schema `airloc.fleet-last/1`): an array with one object per
/// device, in device-id order, each with every key, null when unknown:
/// `device_id`, `time` (its latest track row), `latitude`, `longitude` (as `[serve]
/// position` allows), `us_aqi` (the measured index when its particulate sensor read within
/// ``measuredFor`` seconds, else its latest model hour's), `aqi_source` (`measured`,
/// `model`), `category`, `colour` (the category's), `pm2_5_measured` (µg/m³, from that
/// fresh reading), `age_seconds` (since its newest row) and `stale` (older than `[serve]
/// stale-after`).
enum FleetLast {
    /// Seconds a particulate reading speaks for the device's air (as on the device's own map).
    static let measuredFor = 600.0
    /// How far ahead of the server's clock a row may be dated and still be a device's last:
    /// a device clock an hour fast still shows; a row dated 2099 never pins the page, its
    /// marker or its metrics (the stale alert fires instead, as it should for that device).
    static let aheadAtMost = 3600.0

    /// What the map shows of one device.
    struct Shown {
        var aqi: Int?
        var source: String?
        var pm2_5: Double?
        var newest: Date?
    }

    static func shown(_ last: LastPosition, now: Date) -> Shown {
        var shown = Shown(aqi: last.modelAQI, source: last.modelAQI == nil ? nil : "model", newest: last.time)
        if let measured = last.measured {
            if now.timeIntervalSince(measured.time) <= measuredFor, let aqi = measured.aqi {
                (shown.aqi, shown.source, shown.pm2_5) = (aqi, "measured", measured.pm2_5)
            }
            shown.newest = max(shown.newest ?? measured.time, measured.time)
        }
        if let newest = last.newestRow { shown.newest = max(shown.newest ?? newest, newest) }
        return shown
    }

    static func json(_ devices: [LastPosition], now: Date, serve: ServeSettings) -> String {
        let objects = devices.map { last -> String in
            let shown = shown(last, now: now)
            let coordinate = last.coordinate.flatMap(ServedPosition(serve.position).shown)
            let age = shown.newest.map { max(0, Int(now.timeIntervalSince($0).rounded(.down))) }
            let category = shown.aqi.map(AQICategory.init(aqi:))
            let fields: [(String, String)] = [
                ("device_id", ServedReplies.quoted(last.deviceID)),
                ("time", last.time.map { "\"\(UTCTime.iso8601($0))\"" } ?? "null"),
                ("latitude", coordinate.map { number($0.latitude) } ?? "null"),
                ("longitude", coordinate.map { number($0.longitude) } ?? "null"),
                ("us_aqi", shown.aqi.map(String.init) ?? "null"),
                ("aqi_source", shown.source.map { "\"\($0)\"" } ?? "null"),
                ("category", category.map { "\"\($0.rawValue)\"" } ?? "null"),
                ("colour", "\"\(category?.color ?? "#9E9E9E")\""),
                ("pm2_5_measured", shown.pm2_5.map(number) ?? "null"),
                ("age_seconds", age.map(String.init) ?? "null"),
                ("stale", age.map { Double($0) > serve.staleAfter } ?? true ? "true" : "false"),
            ]
            return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
        }
        return "[" + objects.joined(separator: ",\n") + "]\n"
    }

    /// The fleet's `/metrics`: how many devices, and each one's newest row's time and AQI
    /// (what the "device stale for an hour" alert reads).
    static func metrics(_ devices: [LastPosition], now: Date, openMetrics: Bool) -> String {
        var exposition = MetricsExposition(openMetrics: openMetrics)
        exposition.gauge("airloc_fleet_devices", "Devices in the collector's database.", [("", Double(devices.count))])
        let shown = devices.map { ($0.deviceID, Self.shown($0, now: now)) }
        exposition.gauge(
            "airloc_fleet_device_last_row_timestamp_seconds",
            "Unix time of each device's newest row of any kind in the collector's database.",
            shown.map { ("device=\"\(MetricsExposition.label($0.0))\"", $0.1.newest?.timeIntervalSince1970) })
        exposition.gauge(
            "airloc_fleet_device_aqi", "Each device's US AQI as the fleet page colours it (measured when fresh).",
            shown.map { ("device=\"\(MetricsExposition.label($0.0))\",scale=\"us\"", $0.1.aqi.map(Double.init)) })
        return exposition.text
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
