import AirQuality
import Foundation
import Readings
import Sensors

/// A `[sensor.NAME]` CO₂ or climate sensor's reading for a report made now: the logger's
/// latest row while it is fresh, else a reading made for the report; or why there is none.
///
/// Contract: one per configured section, in the configuration's order; a sensor that
/// fails carries its failure and never fails the report or another sensor.
public struct MeasuredClimate: Sendable {
    /// The section's NAME.
    public var name: String
    /// Which sensor.
    public var model: ClimateModel
    /// Which key says where it is (`device`, `iio`, `hwmon`) and what it says.
    public var place: (key: String, value: String)
    /// The reading, or why there is none.
    public var outcome: Result<ClimateSample, SensorFailure>
    /// Seconds since the reading ended (0 for one made for this report).
    public var ageSeconds: Double
    /// True when it is the logger's latest row.
    public var fromLogbook: Bool

    /// A sensor's outcome, `ageSeconds` old.
    public init(
        name: String, model: ClimateModel, place: (key: String, value: String),
        outcome: Result<ClimateSample, SensorFailure>, ageSeconds: Double = 0, fromLogbook: Bool = false
    ) {
        (self.name, self.model, self.place, self.outcome) = (name, model, place, outcome)
        (self.ageSeconds, self.fromLogbook) = (ageSeconds, fromLogbook)
    }

    /// The values read (nil after a failure).
    public var values: ClimateValues? { try? outcome.get().mean }

    /// The first value of `quantity` among `sensors` (the configuration's order), with the
    /// sensor that gave it: what the card's headline numbers are.
    public static func first(_ quantity: ClimateQuantity, in sensors: [MeasuredClimate]) -> (
        value: Double, sensor: MeasuredClimate
    )? {
        for sensor in sensors {
            if let values = sensor.values, let value = quantity.value(in: values) { return (value, sensor) }
        }
        return nil
    }

    /// "CO₂ 845 ppm Moderate · 21.5 °C · 41 % humidity · 1013.3 hPa": the values read, the
    /// temperature in `units`; nil after a failure.
    public func summary(units: TemperatureUnit) -> String? {
        guard let values else { return nil }
        var parts: [String] = []
        if let co2 = values.co2PPM { parts.append("CO₂ \(Int(co2.rounded())) ppm \(CO2Band(ppm: co2).name)") }
        if let temperature = values.temperatureC { parts.append(units.format(celsius: temperature)) }
        if let humidity = values.relativeHumidity { parts.append("\(Int(humidity.rounded())) % humidity") }
        if let pressure = values.pressureHPa { parts.append(ClimateQuantity.pressure.text(pressure)) }
        return parts.joined(separator: " · ")
    }
}
