import AirQuality
import Airloc
import Foundation
import Geo
import Readings

/// `airloc sense` for a person: the mean PM values, how the mean was made, and the flags.
public struct SensorText {
    /// Where it is printed.
    public var console: Console

    /// The text for `console`.
    public init(console: Console) { self.console = console }

    /// `sense`'s text for `sample`.
    public func render(_ sample: SensorSample) -> String {
        let mean = sample.mean
        var values = [String]()
        if let pm1 = mean.pm1_0 { values.append("PM1 \(formatConcentration(pm1))") }
        values.append("PM2.5 " + console.bold(formatConcentration(mean.pm2_5)) + " µg/m³")
        if let pm4 = mean.pm4_0 { values.append("PM4 \(formatConcentration(pm4))") }
        values.append("PM10 \(formatConcentration(mean.pm10))")
        var lines = ["Measured here  " + values.joined(separator: " · ")]
        var detail = ["\(sample.model.displayName) on \(sample.device)"]
        if let serial = sample.serial { detail.append("serial \(serial)") }
        detail.append("\(sample.samples) samples over \(Int(sample.windowSeconds)) s")
        lines.append("  " + console.dim(detail.joined(separator: " · ")))
        if let aqi = sample.usAQI {
            lines.append("  US AQI \(aqi) (\(AQICategory(aqi: aqi).name)), an instantaneous estimate")
        }
        if let corrected = sample.correctedPM2_5 {
            lines.append("  PM2.5 corrected (US EPA, CF=1 with humidity) \(formatConcentration(corrected)) µg/m³")
        }
        if let temperature = mean.temperatureC, let humidity = mean.relativeHumidity {
            lines.append("  \(String(format: "%.1f", temperature)) °C · \(Int(humidity.rounded())) % humidity")
        }
        for flag in sample.flags { lines.append("  " + console.warning("⚠ " + Self.explain(flag))) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `sense`'s text for a CO₂ or climate sample of the sensor `name`.
    public func render(_ sample: ClimateSample, name: String) -> String {
        let mean = sample.mean
        var values = [String]()
        if let co2 = mean.co2PPM { values.append("CO₂ " + console.bold("\(Int(co2.rounded()))") + " ppm") }
        if let temperature = mean.temperatureC { values.append(String(format: "%.1f °C", temperature)) }
        if let humidity = mean.relativeHumidity { values.append("\(Int(humidity.rounded())) % humidity") }
        if let pressure = mean.pressureHPa { values.append(String(format: "%.1f hPa", pressure)) }
        var lines = ["Measured here  " + values.joined(separator: " · ")]
        lines.append(
            "  "
                + console.dim(
                    "\(name): \(sample.model.displayName) on \(sample.source) · \(sample.samples) samples over "
                        + "\(Int(sample.windowSeconds)) s"))
        for fault in sample.faults { lines.append("  " + console.warning("⚠ the sensor reports: \(fault)")) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// "the logger (airloc, PID 812) holds the sensor: this is its latest reading, 42 s
    /// ago" — nil for a reading made now.
    public static func held(_ reading: MeasuredReading) -> String? {
        reading.heldBy.map { held(pid: $0, ageSeconds: reading.ageSeconds) }
    }

    /// "the logger (airloc, PID 812) holds the sensor: this is its latest reading, 42 s ago".
    public static func held(pid: Int32, ageSeconds: Double) -> String {
        "the logger (airloc, PID \(pid)) holds the sensor: this is its latest reading, "
            + "\(formatAge(ageSeconds)) ago, from the logbook"
    }

    static func explain(_ flag: SensorSample.Flag) -> String {
        switch flag {
        case .humidity: return "humid air: particles swell, the value reads high"
        case .warmUpCutShort: return "warm-up shorter than the sensor needs: values may not be stable"
        case .outOfRange: return "a value beyond the sensor's range"
        }
    }
}
