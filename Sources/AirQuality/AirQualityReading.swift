import Foundation
import Geo

/// Current air quality at one place, as the service reported it.
///
/// Contract: `usAQI` and `subIndices` are Open-Meteo's own values where it gave them
/// (never recomputed); where it left one null but gave the concentration, airloc fills it
/// in with ``EPAIndex`` and lists it in `computed` (`usAQIComputed` for the overall
/// index), so a report can say which it shows. A pollutant whose value the service left
/// null is absent from `concentrations`, never zero.
public struct AirQualityReading: Sendable, Hashable {
    /// The US AQI (0-500).
    public var usAQI: Int
    /// Its EPA category.
    public var category: AQICategory { AQICategory(aqi: usAQI) }
    /// µg/m³ per pollutant, as reported.
    public var concentrations: [Pollutant: Double]
    /// Per-pollutant US AQI sub-indices: Open-Meteo's, or computed (see `computed`).
    public var subIndices: [Pollutant: Int]
    /// Sub-indices airloc computed from the concentration because the service gave none.
    public var computed: Set<Pollutant> = []
    /// True when `usAQI` was computed from the concentrations.
    public var usAQIComputed = false
    /// Pollen from the same answer (empty outside Europe or out of season).
    public var pollen = PollenReading(species: [:])
    /// The data's own time ("2024-02-21T16:00", local to `timezone`).
    public var time: String
    /// The place's IANA time zone, as the service gave it.
    public var timezone: String
    /// Centre of the model grid cell that answered.
    public var gridCoordinate: Coordinate?
    /// The European AQI on airloc's one table (``EuropeanAQICategory/index(_:)``) from
    /// `concentrations`; Open-Meteo's own value only where no covered concentration was
    /// given (set both with ``setEuropeanAQI(service:)``).
    public var europeanAQI: Int?
    /// Open-Meteo's own `european_aqi`, as it gave it: a report says it where it differs
    /// from ``europeanAQI`` (another table, another averaging).
    public var serviceEuropeanAQI: Int?
    /// The European index of each pollutant, when the service gave them.
    public var europeanSubIndices: [Pollutant: Int] = [:]
    /// The instant `time` stands for, and the data's interval (3600 s; 900 before
    /// Nov 2025): the reading is current until `dataTime + interval`.
    public var dataTime: Date?
    /// Seconds between the data's values (hourly).
    public var interval: Int = 3600

    /// When the service will have a newer value: the next boundary of the data's own
    /// interval. Nil when the answer had no parseable time.
    public var nextUpdate: Date? { dataTime.map { $0.addingTimeInterval(Double(max(interval, 60))) } }

    /// A reading.
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

    /// The European index from the concentrations on airloc's table, and `service` (the
    /// answer's own `european_aqi`) kept beside it.
    public mutating func setEuropeanAQI(service: Int?) {
        serviceEuropeanAQI = service
        europeanAQI = EuropeanAQICategory.index(concentrations) ?? service
    }

    /// The service's European index where it is not airloc's (nil where they agree).
    public var differingServiceEuropeanAQI: Int? {
        serviceEuropeanAQI.flatMap { $0 == europeanAQI ? nil : $0 }
    }

    /// The pollutant with the highest sub-index (EPA's "dominant pollutant").
    public var dominantPollutant: Pollutant? {
        subIndices.max { a, b in a.value < b.value || (a.value == b.value && a.key.rawValue > b.key.rawValue) }?.key
    }
}

extension AirQualityReading {
    /// Fills the sub-indices (and the overall index) the service left out, from the
    /// concentrations it did give, with the EPA's own computation. Returns nil when
    /// neither an overall index nor any concentration is available.
    public static func completing(
        usAQI: Int?, concentrations: [Pollutant: Double], subIndices: [Pollutant: Int], time: String,
        timezone: String, gridCoordinate: Coordinate?
    ) -> AirQualityReading? {
        var indices = subIndices
        var computed = Set<Pollutant>()
        for (pollutant, value) in concentrations where indices[pollutant] == nil {
            if let number = EPAIndex.index(pollutant, microgramsPerCubicMetre: value)?.value {
                indices[pollutant] = number
                computed.insert(pollutant)
            }
        }
        var overall = usAQI
        var overallComputed = false
        if overall == nil, let best = indices.values.max() {
            overall = best
            overallComputed = true
        }
        guard let overall else { return nil }
        var reading = AirQualityReading(
            usAQI: overall, concentrations: concentrations, subIndices: indices, time: time, timezone: timezone,
            gridCoordinate: gridCoordinate)
        reading.computed = computed
        reading.usAQIComputed = overallComputed
        return reading
    }
}
