import Foundation
import Geo
import Readings
import Sensors

/// `airloc sense --json`, schema `airloc.sense/1` (docs/json-schema.md): one reading of the
/// particulate sensor.
///
/// Contract: µg/m³ for mass (Plantower: the ATM values, with the CF=1 PM2.5 beside them),
/// °C and % where the sensor measures them; a field the sensor does not have is null.
/// `us_aqi` is the EPA index of this mean, an instantaneous estimate (`us_aqi_basis`),
/// not the 24-hour figure the index is defined on.
public struct SenseJSON: Encodable {
    /// The document's schema.
    public var schema = "airloc.sense/1"
    /// The particulate sensor's values (all null without `[sensor]`, when only
    /// `[sensor.NAME]` sensors were read).
    public var particulate = ParticulateJSON()
    /// What the AQI is: of one reading, not a 24-hour mean.
    public var usAqiBasis: String? = "instantaneous estimate"
    /// What may make it mislead.
    public var flags: [String] = []
    /// When the reading ended (ISO 8601 UTC).
    public var time: String?
    /// "sensor" (read now) or "logbook" (the logger's latest, while it holds the sensor).
    public var source: String?
    /// Seconds since the reading ended.
    public var ageS: Double?
    /// The logger that holds the sensor, when the reading is its latest.
    public var heldByPid: Int?
    /// Every sensor read, `[sensor]` (named `sensor`) first, then each `[sensor.NAME]`.
    public var sensors: [Sensor] = []

    /// One sensor's entry in ``sensors``: where it is, its values (null where it does not
    /// measure them, all null when it failed) and its error.
    public struct Sensor: Encodable, Sendable {
        /// `sensor` for `[sensor]`, else the section's NAME.
        public var name: String
        /// The model as configured.
        public var model: String
        /// The serial device it was read on.
        public var device: String?
        /// The IIO directory it was read in.
        public var iio: String?
        /// The hwmon directory it was read in.
        public var hwmon: String?
        /// PM1.0, µg/m³.
        public var pm1_0: Double?
        /// PM2.5, µg/m³.
        public var pm2_5: Double?
        /// PM4.0, µg/m³.
        public var pm4_0: Double?
        /// PM10, µg/m³.
        public var pm10: Double?
        /// CO₂, ppm.
        public var co2Ppm: Double?
        /// °C.
        public var temperatureC: Double?
        /// %.
        public var relativeHumidity: Double?
        /// hPa.
        public var pressureHpa: Double?
        /// The particulate reading's US AQI.
        public var usAqi: Int?
        /// Readings averaged.
        public var samples: Int?
        /// Seconds they span.
        public var windowS: Double?
        /// The particulate sensor's flags, a CO₂ sensor's faults in its own words.
        public var flags: [String]
        /// Why it gave no reading (null when it did).
        public var error: String?
        /// Seconds since the reading when it is the logger's latest row (null: made now).
        public var ageS: Double?

        /// An entry for sensor `name` (`model`) at `key` (`device`, `iio` or `hwmon`) = `value`.
        public init(name: String, model: String, key: String, value: String) {
            (self.name, self.model, flags) = (name, model, [])
            switch key {
            case "iio": iio = value
            case "hwmon": hwmon = value
            default: device = value
            }
        }

        /// With a particulate reading's values.
        public mutating func set(_ sample: SensorSample) {
            let mean = sample.mean
            (pm1_0, pm2_5, pm4_0, pm10) = (mean.pm1_0, mean.pm2_5, mean.pm4_0, mean.pm10)
            (temperatureC, relativeHumidity, usAqi) = (mean.temperatureC, mean.relativeHumidity, sample.usAQI)
            (samples, windowS, flags) = (sample.samples, sample.windowSeconds, sample.flags.map(\.rawValue))
        }

        /// With a CO₂ or climate reading's values.
        public mutating func set(_ sample: ClimateSample) {
            let mean = sample.mean
            (co2Ppm, temperatureC, relativeHumidity, pressureHpa) =
                (mean.co2PPM, mean.temperatureC, mean.relativeHumidity, mean.pressureHPa)
            (samples, windowS, flags) = (sample.samples, sample.windowSeconds, sample.faults)
        }
    }

    /// A document of `[sensor.NAME]` sensors only: the particulate keys are null.
    public init(sensors: [Sensor], now: Date = Date()) {
        self.sensors = sensors
        (usAqiBasis, source, time, ageS) = (nil, "sensor", UTCTime.iso8601Seconds(now), 0)
    }

    /// The document of `sample`.
    public init(_ sample: SensorSample) {
        particulate = ParticulateJSON(sample)
        flags = sample.flags.map(\.rawValue)
    }

    /// The document of `reading`: when it was made, and where it came from.
    public init(_ reading: MeasuredReading, now: Date = Date()) {
        self.init(reading.sample)
        let age = (reading.ageSeconds * 10).rounded() / 10
        (ageS, heldByPid, source) = (age, reading.heldBy.map(Int.init), reading.fromLogbook ? "logbook" : "sensor")
        time = UTCTime.iso8601Seconds(now.addingTimeInterval(-reading.ageSeconds))
    }
}
