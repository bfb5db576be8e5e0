/// One set of values a sensor sent: µg/m³ for mass, °C and % for the T variant.
///
/// Contract: a field is nil when the sensor does not measure it; values are as the frame
/// gives them (ATM values for Plantower, with the CF=1 PM2.5 beside them), never made up.
public struct ParticulateValues: Sendable, Equatable {
    /// The most any particulate sensor can say, µg/m³ (Plantower's 16-bit field); a
    /// decoder refuses a frame beyond it as damaged.
    public static let possible = 65_535.0
    /// PM1.0, µg/m³ (not every sensor measures it).
    public var pm1_0: Double?
    /// PM2.5, µg/m³.
    public var pm2_5: Double
    /// PM4.0, µg/m³ (the SPS30).
    public var pm4_0: Double?
    /// PM10, µg/m³.
    public var pm10: Double
    /// Plantower's PM2.5 at "CF=1", where the US EPA correction starts.
    public var pm2_5CF1: Double?
    /// °C, from a sensor that measures it (PMS5003T).
    public var temperatureC: Double?
    /// %, from a sensor that measures it (PMS5003T).
    public var relativeHumidity: Double?

    /// Values as read.
    public init(
        pm1_0: Double? = nil, pm2_5: Double, pm4_0: Double? = nil, pm10: Double, pm2_5CF1: Double? = nil,
        temperatureC: Double? = nil, relativeHumidity: Double? = nil
    ) {
        (self.pm1_0, self.pm2_5, self.pm4_0, self.pm10) = (pm1_0, pm2_5, pm4_0, pm10)
        (self.pm2_5CF1, self.temperatureC, self.relativeHumidity) = (pm2_5CF1, temperatureC, relativeHumidity)
    }
}
