/// What a CO₂ or climate sensor measured: ppm, °C, %, hPa.
///
/// Contract: a field is nil when the sensor does not measure it or did not say (an SCD30
/// float that is not a number, a value beyond ``ClimateQuantity/possible``); values are as
/// the sensor sent them, never made up or clamped. A sensor that sent nothing usable gives
/// no `ClimateValues` at all.
public struct ClimateValues: Sendable, Equatable {
    /// CO₂, parts per million.
    public var co2PPM: Double?
    /// Temperature, °C.
    public var temperatureC: Double?
    /// Relative humidity, %.
    public var relativeHumidity: Double?
    /// Air pressure, hPa.
    public var pressureHPa: Double?

    /// Values as read.
    public init(
        co2PPM: Double? = nil, temperatureC: Double? = nil, relativeHumidity: Double? = nil, pressureHPa: Double? = nil
    ) {
        (self.co2PPM, self.temperatureC, self.relativeHumidity, self.pressureHPa) =
            (co2PPM, temperatureC, relativeHumidity, pressureHPa)
        self = possible
    }

    /// These values without those no sensor can say (``ClimateQuantity/possible``).
    public var possible: ClimateValues {
        func kept(_ value: Double?, _ quantity: ClimateQuantity) -> Double? {
            value.flatMap { $0.isFinite && quantity.possible.contains($0) ? $0 : nil }
        }
        var values = self
        values.co2PPM = kept(co2PPM, .co2)
        values.temperatureC = kept(temperatureC, .temperature)
        values.relativeHumidity = kept(relativeHumidity, .humidity)
        values.pressureHPa = kept(pressureHPa, .pressure)
        return values
    }

    /// True when nothing was measured.
    public var isEmpty: Bool { co2PPM == nil && temperatureC == nil && relativeHumidity == nil && pressureHPa == nil }
}
