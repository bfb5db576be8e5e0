import Foundation
import Sensors

/// `airloc sense --json`, schema `airloc.sense/1` (docs/json-schema.md): one reading of the
/// particulate sensor.
///
/// Contract: µg/m³ for mass (Plantower: the ATM values, with the CF=1 PM2.5 beside them),
/// °C and % where the sensor measures them; a field the sensor does not have is null.
/// `us_aqi` is the EPA index of this mean, an instantaneous estimate (`us_aqi_basis`),
/// not the 24-hour figure the index is defined on.
public struct SenseJSON: Encodable {
    public var schema = "airloc.sense/1"
    public var model: String
    public var device: String
    public var serial: String?
    public var pm1_0: Double?
    public var pm2_5: Double
    public var pm4_0: Double?
    public var pm10: Double
    public var pm2_5Cf1: Double?
    public var temperatureC: Double?
    public var relativeHumidity: Double?
    public var samples: Int
    public var windowS: Double
    public var usAqi: Int?
    public var usAqiBasis = "instantaneous estimate"
    public var correctedPm2_5: Double?
    public var flags: [String]

    public init(_ sample: SensorSample) {
        (model, device, serial) = (sample.model.rawValue, sample.device, sample.serial)
        let mean = sample.mean
        (pm1_0, pm2_5, pm4_0, pm10, pm2_5Cf1) = (mean.pm1_0, mean.pm2_5, mean.pm4_0, mean.pm10, mean.pm2_5CF1)
        (temperatureC, relativeHumidity) = (mean.temperatureC, mean.relativeHumidity)
        (samples, windowS, usAqi) = (sample.samples, sample.windowSeconds, sample.usAQI)
        correctedPm2_5 = sample.correctedPM2_5
        flags = sample.flags.map(\.rawValue)
    }
}
