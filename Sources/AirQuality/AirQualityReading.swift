import Foundation
import Geo

/// Current air quality at one place, as the service reported it.
///
/// Contract: `usAQI` is Open-Meteo's own index (not recomputed); a pollutant whose value
/// the service left null is absent from `concentrations`, never zero.
public struct AirQualityReading: Sendable, Hashable {
    public var usAQI: Int
    public var category: AQICategory { AQICategory(aqi: usAQI) }
    /// µg/m³ per pollutant, as reported.
    public var concentrations: [Pollutant: Double]
    /// Open-Meteo's per-pollutant US AQI sub-indices, where reported.
    public var subIndices: [Pollutant: Int]
    /// The data's own time ("2024-02-21T16:00", local to `timezone`).
    public var time: String
    public var timezone: String
    /// Centre of the model grid cell that answered.
    public var gridCoordinate: Coordinate?

    public init(
        usAQI: Int, concentrations: [Pollutant: Double], subIndices: [Pollutant: Int] = [:],
        time: String, timezone: String = "GMT", gridCoordinate: Coordinate? = nil
    ) {
        self.usAQI = usAQI
        self.concentrations = concentrations
        self.subIndices = subIndices
        self.time = time
        self.timezone = timezone
        self.gridCoordinate = gridCoordinate
    }

    /// The pollutant with the highest sub-index (EPA's "dominant pollutant").
    public var dominantPollutant: Pollutant? {
        subIndices.max { a, b in a.value < b.value || (a.value == b.value && a.key.rawValue > b.key.rawValue) }?.key
    }
}
