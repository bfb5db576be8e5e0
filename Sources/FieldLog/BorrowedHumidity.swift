import Airloc
import Foundation
import Logbook
import Readings
import Sensors
import Settings

/// `[sensor] humidity-from = NAME`: the humidity another sensor measured, lent to the
/// particulate reading for its correction and its humidity flag.
///
/// Contract: only a reading of NAME younger than two of its intervals (at least two
/// minutes) lends its humidity: an old one is no reading of the air being sampled, and
/// the particulate reading then keeps its own (a PMS5003T's) or none. Without
/// `humidity-from` every function here returns what it was given.
public enum BorrowedHumidity {
    /// The `[sensor.NAME]` section `humidity-from` names, if any.
    static func section(_ settings: Settings) -> ClimateSensorSettings? {
        guard let name = settings.sensor.humidityFrom else { return nil }
        return settings.climateSensors.first { $0.name == name }
    }

    /// `sample` with the humidity of `relativeHumidity`, when there is one.
    public static func apply(_ relativeHumidity: Double?, to sample: SensorSample, settings: Settings) -> SensorSample {
        guard let relativeHumidity else { return sample }
        return sample.humidified(
            by: relativeHumidity, correction: settings.sensor.correction, humidityLimit: settings.sensor.humidityLimit)
    }

    /// The lending sensor's humidity in the logbook at `now` (the logger's case).
    public static func logged(_ settings: Settings, logbook: Logbook, now: Date) -> Double? {
        guard let section = section(settings), let row = try? logbook.latestSensorRecord(named: section.name),
            now.timeIntervalSince(row.time) < section.freshness
        else { return nil }
        return row.relativeHumidity
    }

    /// The lending sensor's humidity among the readings of a report (`now`).
    public static func among(_ sensors: [MeasuredClimate], settings: Settings) -> Double? {
        guard let section = section(settings), let sensor = sensors.first(where: { $0.name == section.name }),
            sensor.ageSeconds < section.freshness
        else { return nil }
        return sensor.values?.relativeHumidity
    }
}

extension MeasuredNow {
    /// The report's particulate reading with the humidity `humidity-from` lends it from
    /// the report's own `[sensor.NAME]` readings (a reading of the logger's kept as logged).
    public static func lend(_ measured: MeasuredAir?, _ climate: [MeasuredClimate], _ settings: Settings) -> (
        MeasuredAir?, [MeasuredClimate]
    ) {
        guard case .reading(var reading)? = measured, !reading.fromLogbook,
            let humidity = BorrowedHumidity.among(climate, settings: settings)
        else { return (measured, climate) }
        reading.sample = BorrowedHumidity.apply(humidity, to: reading.sample, settings: settings)
        return (.reading(reading), climate)
    }
}
