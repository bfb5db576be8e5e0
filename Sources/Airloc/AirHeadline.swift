import AirQuality
import Sensors

/// What the card leads with: the air measured here when there is a fresh reading with an
/// index, else the model's. A sensor beside the person is the better witness of what they
/// breathe; the model's grid cell stays beside it as context.
///
/// Contract: ``of(_:)`` is `.measured` exactly when the report holds a reading (readings in
/// a report are fresh: ``MeasuredNow`` passes on the logger's only while younger than two
/// intervals) whose US AQI is known; its index is the NowCast of the logbook's hours when
/// there is one, else the reading's own (of the corrected PM2.5 where a correction
/// applies). `.model` carries the service's index; nil when there is neither.
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

    /// The EPA category of ``usAQI``.
    public var category: AQICategory { AQICategory(aqi: usAQI) }

    /// What `report`'s card leads with.
    public static func of(_ report: AirReport) -> AirHeadline? {
        if case .reading(let reading)? = report.measured, let headline = measured(reading) { return headline }
        guard case .success(let air) = report.air else { return nil }
        return AirHeadline(source: .model, usAQI: air.usAQI, basis: air.usAQIComputed ? "computed" : "open-meteo")
    }

    /// The measured air's index: the NowCast, else the reading's own; nil when the reading
    /// has none.
    public static func measured(_ reading: MeasuredReading) -> AirHeadline? {
        if let nowcast = reading.nowcastUSAQI {
            return AirHeadline(source: .measured, usAQI: nowcast, basis: "nowcast")
        }
        guard let aqi = reading.sample.usAQI else { return nil }
        return AirHeadline(source: .measured, usAQI: aqi, basis: "instantaneous estimate")
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
