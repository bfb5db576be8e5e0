/// A CO₂ or climate sensor airloc can read, as a `[sensor.NAME] model` line names it.
///
/// Contract: three are read on a serial port by airloc itself (`mh-z19`, `senseair-s8`,
/// `scd30` with a `device`); the others, and `scd30` with `iio`, through the kernel's own
/// driver, whose name the model is (IIO: `bme280`, `bmp280`, `bme680`, `scd30`, `scd4x`,
/// `dht11`; hwmon: `sht3x`, `sht4x`, `htu21`). Which values each one gives is in
/// docs/sensors.md; a value it does not measure is never made up.
public enum ClimateModel: String, Sendable, CaseIterable {
    case mhZ19 = "mh-z19"
    case senseairS8 = "senseair-s8"
    case scd30
    case scd4x
    case bme280
    case bmp280
    case bme680
    case dht11
    case sht3x
    case sht4x
    case htu21

    /// True for the models airloc reads on a serial port itself.
    public var speaksUART: Bool { self == .mhZ19 || self == .senseairS8 || self == .scd30 }

    /// The name people know it by ("MH-Z19", "SenseAir S8", "BME280").
    public var displayName: String {
        switch self {
        case .mhZ19: return "MH-Z19"
        case .senseairS8: return "SenseAir S8"
        default: return rawValue.uppercased()
        }
    }

    /// Its serial speed on a UART (the SCD30's Modbus runs at 19200).
    public var baud: Int { self == .scd30 ? 19_200 : 9600 }

    /// Seconds after power-up or start before its readings are worth keeping: the MH-Z19's
    /// datasheet asks for 3 minutes of preheating; the S8 and the SCD30 answer within
    /// seconds (their first readings are already filtered); a kernel driver reads on demand.
    public var defaultWarmUpSeconds: Double { self == .mhZ19 ? 180 : 0 }
}

/// One reading of a CO₂ or climate sensor: the mean of what it said over the sample
/// window, and what it flagged.
///
/// Contract: a value is the mean of the readings that had it, at its quantity's precision
/// (``ClimateQuantity/decimals``); one no reading had is nil.
/// `faults` are the sensor's own words for a fault it reported (a SenseAir status bit);
/// a reading with a fault still carries the values that were read.
public struct ClimateSample: Sendable, Equatable {
    /// Which sensor.
    public var model: ClimateModel
    /// Where it was read: a serial device, or a sysfs directory.
    public var source: String
    /// The mean values.
    public var mean: ClimateValues
    /// Readings averaged.
    public var samples: Int
    /// Seconds from the first reading of the window to the last.
    public var windowSeconds: Double
    /// Faults the sensor reported during the window.
    public var faults: [String]

    /// A sample of `readings` (at least one).
    public init(
        model: ClimateModel, source: String, readings: [ClimateValues], windowSeconds: Double, faults: [String] = []
    ) {
        // Each mean at its quantity's precision (ClimateQuantity.decimals): 1013.2500000000001
        // hPa is 1013.25 in the logbook, the export, the API and the metrics alike.
        func mean(_ quantity: ClimateQuantity) -> Double? {
            let values = readings.compactMap(quantity.value(in:))
            return values.isEmpty ? nil : quantity.rounded(values.reduce(0, +) / Double(values.count))
        }
        self.model = model
        self.source = source
        self.mean = ClimateValues(
            co2PPM: mean(.co2), temperatureC: mean(.temperature), relativeHumidity: mean(.humidity),
            pressureHPa: mean(.pressure))
        self.samples = readings.count
        self.windowSeconds = windowSeconds
        self.faults = faults
    }
}
