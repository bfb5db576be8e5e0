import AirQuality
import Airloc
import Foundation
import HTTPService
import Logbook
import Platform
import Readings
import Web

/// `GET /metrics`: the device in the Prometheus text format 0.0.4, or OpenMetrics 1.0
/// when the scraper asks for it (docs/serve.md names every metric).
///
/// Contract: the names are fixed (dashboards rely on them); each family has its HELP and
/// TYPE; a value that is not known is left out, never written as 0 (no logbook: only
/// `airloc_build_info`); latitude and longitude follow `[serve] position` and are absent
/// with `none`.
struct DeviceMetrics {
    let source: DeviceSource
    let now: Date

    /// The scraper asks for OpenMetrics (Prometheus does, first).
    static func asksOpenMetrics(_ request: ServedRequest) -> Bool { MetricsExposition.asksOpenMetrics(request) }

    func text(openMetrics: Bool) -> String {
        var exposition = MetricsExposition(openMetrics: openMetrics)
        func add(_ name: String, _ help: String, _ samples: [(String, Double?)]) {
            exposition.gauge(name, help, samples)
        }
        let report = source.now(at: now)
        let model = report.flatMap { try? $0.air.get() }
        // The latest reading, and the same while it stands for now: a stale one keeps its
        // age series and leaves its values out, as any unknown value is.
        var latest: MeasuredReading?
        if case .reading(let reading)? = report?.measured { latest = reading }
        let measured = latest.flatMap { $0.isFresh ? $0 : nil }
        let measuredIndex = measured.flatMap(AirHeadline.measured)
        let eu = source.settings.scale == .eu
        var aqi: [(String, Double?)] = [
            ("scale=\"us\",source=\"model\"", model.map { Double($0.usAQI) }),
            ("scale=\"us\",source=\"measured\"", measuredIndex.map { Double($0.usAQI) }),
        ]
        if eu {
            aqi.append(("scale=\"eu\",source=\"model\"", model?.europeanAQI.map(Double.init)))
            aqi.append(("scale=\"eu\",source=\"measured\"", measuredIndex?.europeanAQI.map(Double.init)))
        }
        add("airloc_aqi", "The air quality index, by source: the model's hour, and the sensor's fresh reading.", aqi)
        let headline = report.flatMap(AirHeadline.of)
        var leading: [(String, Double?)] = [("scale=\"us\"", headline.map { Double($0.usAQI) })]
        if eu { leading.append(("scale=\"eu\"", (headline?.europeanAQI ?? model?.europeanAQI).map(Double.init))) }
        add(
            "airloc_headline_aqi", "The index the card leads with: the measured one while fresh, else the model's.",
            leading)
        add(
            "airloc_pm2_5", "PM2.5 in µg/m³: the model's hour, and the sensor's latest reading.",
            [("source=\"model\"", model?.concentrations[.pm2_5]), ("source=\"measured\"", measured?.sample.mean.pm2_5)])
        add(
            "airloc_pm10", "PM10 in µg/m³: the model's hour, and the sensor's latest reading.",
            [("source=\"model\"", model?.concentrations[.pm10]), ("source=\"measured\"", measured?.sample.mean.pm10)])
        let logbook = source.logbook
        let point = try? logbook?.latestTrackPoint()
        add(
            "airloc_fix_mode", "The latest logged fix: 0 no fix, 2 a 2D fix, 3 a 3D fix.",
            [("", point?.mode.map(Double.init))])
        add(
            "airloc_fix_age_seconds", "Seconds since the latest logged fix.",
            [("", point.map { Self.age(now.timeIntervalSince($0.time)) })])
        add(
            "airloc_fix_accuracy_meters", "The latest logged fix's horizontal error radius in metres.",
            [("", report?.fix.horizontalAccuracy)])
        let shown = point.flatMap { source.position.shown($0.coordinate) }
        add(
            "airloc_latitude_degrees", "The latest logged fix's latitude, as [serve] position allows.",
            [("", shown?.latitude)])
        add(
            "airloc_longitude_degrees", "The latest logged fix's longitude, as [serve] position allows.",
            [("", shown?.longitude)])
        let climate = report?.climateSensors ?? []
        add(
            "airloc_sensor_reading_age_seconds",
            "Seconds since a sensor's latest logged reading ([sensor]'s unlabelled, [sensor.NAME]'s by name).",
            [("", latest.map { Self.age($0.ageSeconds) })]
                + climate.map { ("sensor=\"\(Self.label($0.name))\"", Self.age($0.ageSeconds)) })
        for quantity in ClimateQuantity.allCases {
            add(
                quantity.metric,
                "\(quantity.displayName) in \(quantity.unit), each [sensor.NAME]'s latest logged reading.",
                climate.map { sensor in
                    ("sensor=\"\(Self.label(sensor.name))\"", sensor.values.flatMap(quantity.value(in:)))
                })
        }
        if let status = source.status(at: now) {
            add(
                "airloc_logbook_rows", "Rows in the logbook, by kind.",
                [
                    ("kind=\"track\"", Double(status.trackRows)), ("kind=\"air\"", Double(status.airRows)),
                    ("kind=\"sensor\"", Double(status.sensorRows)),
                ])
            add(
                "airloc_upload_backlog_rows", "Rows waiting for each [upload.NAME].",
                status.uploads.map { ("upload=\"\(Self.label($0.name))\"", Double($0.status.backlog)) })
            if source.settings.mqtt.broker.url != nil {
                add(
                    "airloc_mqtt_unsent_rows", "Rows the MQTT broker has not acknowledged.",
                    [("", Double(status.unsent))])
            }
        }
        add(
            "airloc_build_info", "The airloc version serving these metrics.",
            [("version=\"\(AirlocVersion.string)\"", 1)])
        return exposition.text
    }

    static func label(_ text: String) -> String { MetricsExposition.label(text) }

    /// An age in seconds at the tenth a person or an alert reads (the logbook keeps
    /// milliseconds; a difference of two such times is float noise below that).
    static func age(_ seconds: Double) -> Double { (max(0, seconds) * 10).rounded() / 10 }
}
