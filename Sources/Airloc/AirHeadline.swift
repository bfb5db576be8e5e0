import AirQuality
import Readings
import Sensors

/// What the card leads with: the air measured here when there is a fresh reading with an
/// index, else the model's. A sensor beside the person is the better witness of what they
/// breathe; the model's grid cell stays beside it as context.
///
/// Contract: ``of(_:)`` is `.measured` exactly when the report holds a reading (readings in
/// a report are fresh: ``MeasuredNow`` passes on the logger's only while younger than
/// ``SensorSettings/freshness``, and one that carries its window leads only within it)
/// whose US AQI is known; its index is the NowCast of the logbook's hours when
/// there is one, else the reading's own (of the corrected PM2.5 where a correction
/// applies), with the European index of its PM beside it for `--scale eu`. `.model`
/// carries the service's indices; nil when there is neither.
public struct AirHeadline: Sendable, Equatable {
    /// Where the index comes from.
    public enum Source: String, Sendable {
        /// The sensor beside the device.
        case measured
        /// Open-Meteo's model.
        case model
    }

    /// Where the index comes from.
    public var source: Source
    /// The US AQI the card leads with.
    public var usAQI: Int
    /// "nowcast", "instantaneous estimate" (one reading), or "open-meteo" / "computed".
    public var basis: String
    /// The European index: the model's `european_aqi`, or the measured PM's as Open-Meteo
    /// computes it (``EuropeanAQICategory/index(pm2_5:pm10:)``), for `--scale eu`.
    public var europeanAQI: Int?

    /// The EPA category of ``usAQI``.
    public var category: AQICategory { AQICategory(aqi: usAQI) }

    /// What `report`'s card leads with.
    public static func of(_ report: AirReport) -> AirHeadline? {
        if case .reading(let reading)? = report.measured, let headline = measured(reading) { return headline }
        guard case .success(let air) = report.air else { return nil }
        return AirHeadline(
            source: .model, usAQI: air.usAQI, basis: air.usAQIComputed ? "computed" : "open-meteo",
            europeanAQI: air.europeanAQI)
    }

    /// The measured air's index: the NowCast, else the reading's own; nil when the reading
    /// has none, or is past its window (``MeasuredReading/isFresh``).
    public static func measured(_ reading: MeasuredReading) -> AirHeadline? {
        guard reading.isFresh else { return nil }
        let sample = reading.sample
        let european = EuropeanAQICategory.index(
            pm2_5: sample.correctedPM2_5 ?? sample.mean.pm2_5, pm10: sample.mean.pm10)
        if let nowcast = reading.nowcastUSAQI {
            return AirHeadline(source: .measured, usAQI: nowcast, basis: "nowcast", europeanAQI: european)
        }
        guard let aqi = sample.usAQI else { return nil }
        return AirHeadline(source: .measured, usAQI: aqi, basis: "instantaneous estimate", europeanAQI: european)
    }
}

extension SensorSample.Flag {
    /// What the flag means for a reader of the card: "warm-up cut short".
    public var caution: String {
        switch self {
        case .humidity: return "humid air: reads high"
        case .warmUpCutShort: return "warm-up cut short: may be off"
        case .outOfRange: return "beyond the sensor's range"
        }
    }
}
