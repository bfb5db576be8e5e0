import AirQuality
import Foundation
import Geo
import Logbook

/// The readings of a plotted window, held (a day has 24 hours and, with a sensor, about
/// 1,440 measured rows): which one is in force at a moment, and its colour.
///
/// Contract: measured wins over the model where a sensor row is at most 10 minutes old;
/// the model's hour is in force from its start for an hour. On the `us` scale a reading's
/// index is its US AQI (a measured PM2.5's EPA sub-index); on `eu`, the model's EAQI and
/// the measured PM's European index as Open-Meteo computes it: one scale throughout.
struct AirInForce {
    struct Hour {
        var start: Date
        var index: Int?
        var backfilled: Bool
        var pm2_5: Double?
    }

    struct Measured {
        var time: Date
        var pm2_5: Double
        /// The reading's index on the plot's scale.
        var index: Int?
    }

    let air: [Hour]
    let sensor: [Measured]
    let scale: AQIScale
    static let measuredFor: TimeInterval = 600
    static let unknown = "#9E9E9E"

    init(logbook: Logbook, window: LogWindow, scale: AQIScale) throws {
        self.scale = scale
        // The hour in force at the window's start began up to an hour before it.
        var hoursWindow = window
        hoursWindow.since = window.since?.addingTimeInterval(-3600)
        var hours: [Hour] = []
        var records = try logbook.airRecords(in: hoursWindow)
        while let record = records.next() {
            guard record.source != .pending, record.source != .unavailable else { continue }
            let index = scale == .eu ? record.values.europeanAQI : record.values.usAQI
            hours.append(
                Hour(
                    start: record.hour, index: index, backfilled: record.source == .backfill,
                    pm2_5: record.values.pollutants["pm2_5"]))
        }
        if let error = records.error { throw error }
        air = hours.sorted { $0.start < $1.start }
        var measured: [Measured] = []
        var rows = try logbook.sensorRecords(in: window)
        while let row = rows.next() {
            // A CO₂ or climate sensor's row has no index to colour by.
            guard let values = row.particulate else { continue }
            let pm2_5 = row.correctedPM2_5 ?? values.pm2_5
            let index =
                scale == .eu ? EuropeanAQICategory.index(pm2_5: pm2_5, pm10: values.pm10) : row.usAQI
            measured.append(Measured(time: row.time, pm2_5: pm2_5, index: index))
        }
        if let error = rows.error { throw error }
        sensor = measured
    }

    /// The colour of the reading in force at `time`.
    func color(at time: Date) -> String { index(at: time).map(color(index:)) ?? Self.unknown }

    /// The index of the reading in force at `time` (nil: none).
    func index(at time: Date) -> Int? {
        if let reading = Self.latest(sensor, atOrBefore: time, \.time),
            time.timeIntervalSince(reading.time) <= Self.measuredFor,
            let index = reading.index
        {
            return index
        }
        guard let hour = Self.latest(air, atOrBefore: time, \.start), time.timeIntervalSince(hour.start) < 3600
        else { return nil }
        return hour.index
    }

    func color(index: Int) -> String {
        scale == .eu ? EuropeanAQICategory(index: index).color : AQICategory(aqi: index).color
    }

    /// The last element at or before `time` in a list sorted by `key` (binary search).
    static func latest<T>(_ list: [T], atOrBefore time: Date, _ key: KeyPath<T, Date>) -> T? {
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle][keyPath: key] <= time { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? list[low - 1] : nil
    }
}

/// The plotted span in the place's local time: "2026-12-01 08:05–17:40 (UTC+1)".
///
/// Contract: every moment is shown at its own offset (a window across a daylight-saving
/// change is labelled in the time people read on their clocks then); the text names the
/// offset at the start.
struct TimeSpan {
    let start: Date
    let end: Date
    let zone: String
    /// Seconds east of UTC at the start.
    let offset: Int
    let text: String

    init(start: Date, end: Date, zone: String) {
        (self.start, self.end, self.zone) = (start, end, zone)
        let local = LocalTime(timezone: zone, at: start)
        offset = local?.offsetSeconds ?? 0
        let from = Self.wall(start, offset)
        let to = Self.wall(end, LocalTime(timezone: zone, at: end)?.offsetSeconds ?? offset)
        let day = String(from.prefix(10))
        let until = to.hasPrefix(day) ? String(to.suffix(5)) : to.replacingOccurrences(of: "T", with: " ")
        text = "\(day) \(from.suffix(5))–\(until) (\(local?.shortOffset ?? "UTC"))"
    }

    /// Seconds east of UTC at `date` in the span's zone.
    func offset(at date: Date) -> Int { LocalTime(timezone: zone, at: date)?.offsetSeconds ?? offset }

    /// "2026-12-01T08:05" at `offset` seconds east of UTC.
    static func wall(_ date: Date, _ offset: Int) -> String {
        UTCTime(Date(timeIntervalSince1970: (date.timeIntervalSince1970 + Double(offset)).rounded(.down)))
            .text(.minute, zone: false)
    }
}
