import Readings

/// How airrohr, the sensor.community firmware, sends a climate sensor's family: the
/// `X-Pin` sensor.community files it under, and the prefix of its value types in the
/// station's own `/data.json` (`BME280_temperature`; sensor.community gets them without
/// it). The values are `temperature` (°C), `humidity` (%), `pressure` (Pa) and `co2_ppm`.
public struct AirrohrFamily: Sendable, Equatable {
    /// sensor.community's pin: BMP280 3, DHT/SHT/HTU21 7, BME280 11, SCD30 17.
    public var pin: Int
    /// The data.json prefix (empty for the DHT, as airrohr has it).
    public var prefix: String

    /// The values of `values` as airrohr names them, pressure in Pa.
    public func values(_ values: ClimateValues, for model: ClimateModel) -> [(name: String, value: Double)] {
        var named: [(String, Double?)] = [("temperature", values.temperatureC)]
        if model.quantities.contains(.humidity) { named.append(("humidity", values.relativeHumidity)) }
        if model.quantities.contains(.pressure) { named.append(("pressure", values.pressureHPa.map { $0 * 100 })) }
        if model.quantities.contains(.co2) { named.insert(("co2_ppm", values.co2PPM), at: 0) }
        return named.compactMap { name, value in value.map { (name, $0) } }
    }
}

extension ClimateModel {
    /// airrohr's family for the model; nil for one airrohr does not read (MH-Z19, SenseAir
    /// S8, SCD4x, BME680), which sensor.community then does not get.
    public var airrohr: AirrohrFamily? {
        switch self {
        case .bmp280: return AirrohrFamily(pin: 3, prefix: "BMP280_")
        case .bme280: return AirrohrFamily(pin: 11, prefix: "BME280_")
        case .sht3x, .sht4x: return AirrohrFamily(pin: 7, prefix: "SHT3X_")
        case .htu21: return AirrohrFamily(pin: 7, prefix: "HTU21D_")
        case .dht11: return AirrohrFamily(pin: 7, prefix: "")
        case .scd30: return AirrohrFamily(pin: 17, prefix: "SCD30_")
        case .mhZ19, .senseairS8, .scd4x, .bme680: return nil
        }
    }
}
