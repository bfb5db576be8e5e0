import Platform
import Readings

/// A particulate reading's values as `airloc.sense/1` and `airloc.report/1`'s `measured`
/// both write them, declared once: each document holds one, written as its own keys
/// (``JSONInline``).
///
/// Contract: µg/m³ for mass (Plantower: the ATM values, with the CF=1 PM2.5 beside them),
/// °C and % where the sensor measures them; a field the sensor does not have is null, all
/// of them without a reading.
public struct ParticulateJSON: JSONInline, Sendable {
    /// Which sensor.
    public var model: String?
    /// Its device.
    public var device: String?
    /// Its serial number.
    public var serial: String?
    /// PM1.0, µg/m³.
    public var pm1_0: Double?
    /// PM2.5, µg/m³.
    public var pm2_5: Double?
    /// PM4.0, µg/m³.
    public var pm4_0: Double?
    /// PM10, µg/m³.
    public var pm10: Double?
    /// PM2.5 at CF=1 (Plantower), µg/m³.
    public var pm2_5Cf1: Double?
    /// °C, when the sensor measures it.
    public var temperatureC: Double?
    /// %, when the sensor measures it.
    public var relativeHumidity: Double?
    /// Frames averaged.
    public var samples: Int?
    /// Seconds they span.
    public var windowS: Double?
    /// The US AQI of the (corrected) PM2.5.
    public var usAqi: Int?
    /// PM2.5 after the correction, when one applies.
    public var correctedPm2_5: Double?

    /// No reading: every field null.
    public init() {}

    /// The values of `sample`.
    public init(_ sample: SensorSample) {
        (model, device, serial) = (sample.model.rawValue, sample.device, sample.serial)
        let mean = sample.mean
        (pm1_0, pm2_5, pm4_0, pm10, pm2_5Cf1) = (mean.pm1_0, mean.pm2_5, mean.pm4_0, mean.pm10, mean.pm2_5CF1)
        (temperatureC, relativeHumidity) = (mean.temperatureC, mean.relativeHumidity)
        (samples, windowS, usAqi) = (sample.samples, sample.windowSeconds, sample.usAQI)
        correctedPm2_5 = sample.correctedPM2_5
    }
}
