import Foundation

/// The US EPA's NowCast for particulate matter: what AirNow shows for the last hours, from
/// hourly means, weighted towards the latest when the air is changing.
///
/// Contract (EPA; ../shared/reference/air-sensors.md): `hourly` holds the means of the
/// last 12 hours, newest first, nil for an hour without data. The result is nil unless at
/// least 2 of the 3 most recent hours are present. w* = min/max over the hours present,
/// w = max(w*, 0.5); NowCast = Σ wⁱ⁻¹·cᵢ / Σ wⁱ⁻¹ over the hours present. PM2.5 is
/// truncated to 0.1 µg/m³ (PM10 to 1), then placed in the AQI table.
public enum NowCast {
    /// The NowCast of `hourly` means (newest first; nil for a missing hour), or nil when too few.
    public static func concentration(_ hourly: [Double?]) -> Double? {
        let hours = Array(hourly.prefix(12))
        guard hours.prefix(3).compactMap({ $0 }).count >= 2 else { return nil }
        let present = hours.compactMap { $0 }.filter { $0.isFinite && $0 >= 0 }
        guard let high = present.max(), let low = present.min() else { return nil }
        let weight = high > 0 ? max(low / high, 0.5) : 1
        var numerator = 0.0
        var denominator = 0.0
        for (index, value) in hours.enumerated() {
            guard let value, value.isFinite, value >= 0 else { continue }
            let factor = Foundation.pow(weight, Double(index))
            numerator += factor * value
            denominator += factor
        }
        return denominator > 0 ? numerator / denominator : nil
    }

    /// The NowCast AQI of PM2.5 hourly means, or nil where NowCast is not valid.
    public static func pm2_5AQI(_ hourly: [Double?]) -> Int? {
        guard let value = concentration(hourly) else { return nil }
        return EPAIndex.index(.pm2_5, concentration: (value * 10).rounded(.down) / 10)?.value
    }
}
