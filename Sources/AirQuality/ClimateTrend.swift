import Foundation

/// One day's mean air temperature at 2 m (ERA5), in °C.
public struct DailyTemperature: Sendable, Hashable, Codable {
    /// "2026-11-21", the local calendar day.
    public var date: String
    /// The day's mean temperature, °C.
    public var meanCelsius: Double

    /// The mean of `date` (YYYY-MM-DD).
    public init(date: String, meanCelsius: Double) {
        self.date = date
        self.meanCelsius = meanCelsius
    }

    /// "11-21": the calendar day the baseline is looked up by.
    var monthDay: String { String(date.suffix(5)) }
}

/// The 1991-2020 normal for each calendar day at one place: the mean of that day's
/// mean temperature over the 30 years (29 February from its 8 leap years).
///
/// Contract: built once from the archive's 30-year daily series and cached for a year
/// (it changes only when the baseline period does); days the archive left null are
/// skipped, and a calendar day with no value at all has no normal.
public struct Climatology: Sendable, Hashable, Codable {
    /// The climate normal's period.
    public static let period = "1991-2020"
    /// Its first day.
    public static let firstDay = "1991-01-01"
    /// Its last day.
    public static let lastDay = "2020-12-31"

    /// Mean °C by "MM-DD".
    public var normals: [String: Double]

    /// Normals by month and day ("11-30" → °C).
    public init(normals: [String: Double]) { self.normals = normals }

    /// Averages a daily series by calendar day.
    public init(series: [(date: String, meanCelsius: Double?)]) {
        var sums: [String: (total: Double, count: Int)] = [:]
        for (date, value) in series {
            guard let value, value.isFinite, date.count == 10 else { continue }
            let key = String(date.suffix(5))
            sums[key, default: (0, 0)].total += value
            sums[key, default: (0, 0)].count += 1
        }
        normals = sums.mapValues { $0.total / Double($0.count) }
    }

    /// The normal of `day`'s month and day.
    public func normal(on day: DailyTemperature) -> Double? { normals[day.monthDay] }
}

/// How the last days compare with the 1991-2020 normal for the same calendar days
/// (seed 002's climate trend): "+1.8 °C".
///
/// Contract: `days` are the latest (at most 7) days the archive has a value for, oldest
/// first — the archive lags a few days and returns null for days it does not have yet,
/// and those are skipped, never read as 0 °C. `baselineMean` averages the normals of
/// exactly those calendar days, so the two means always cover the same window.
public struct ClimateTrend: Sendable, Hashable {
    /// The recent days, oldest first.
    public var days: [DailyTemperature]
    /// The normal of each day in `days`, same order.
    public var normals: [Double]

    /// The recent days' mean, °C.
    public var recentMean: Double { days.map(\.meanCelsius).reduce(0, +) / Double(days.count) }
    /// The normals' mean over the same days, °C.
    public var baselineMean: Double { normals.reduce(0, +) / Double(normals.count) }
    /// Recent minus normal, °C.
    public var difference: Double { recentMean - baselineMean }

    /// The latest `window` days of `series` that have a value and a normal; nil when none has.
    public static func make(
        series: [(date: String, meanCelsius: Double?)], climatology: Climatology, window: Int = 7
    ) -> ClimateTrend? {
        var days: [DailyTemperature] = []
        var normals: [Double] = []
        for (date, value) in series.sorted(by: { $0.date < $1.date }).reversed() where days.count < window {
            guard let value, value.isFinite else { continue }
            let day = DailyTemperature(date: date, meanCelsius: value)
            guard let normal = climatology.normal(on: day) else { continue }
            days.insert(day, at: 0)
            normals.insert(normal, at: 0)
        }
        return days.isEmpty ? nil : ClimateTrend(days: days, normals: normals)
    }

    static let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// One cell a day, drawn against the normal: "▄" is the day's 1991-2020 normal,
    /// taller cells warmer, shorter colder. The scale is the largest departure of the
    /// window, at least 2 °C, so an ordinary week does not look dramatic.
    public var sparkline: String {
        let departures = zip(days, normals).map { $0.meanCelsius - $1 }
        let scale = max(2.0, departures.map(abs).max() ?? 0)
        return String(
            departures.map { departure in
                let level = 3.5 + departure / scale * 4
                return Self.blocks[min(7, max(0, Int(level.rounded(.down))))]
            })
    }
}
