import Foundation
import Testing
import Web

@testable import AirQuality

struct ClimateTrendTests {
    /// Normals of 4 °C for every day of November.
    let november = Climatology(
        normals: Dictionary(uniqueKeysWithValues: (1...30).map { (String(format: "11-%02d", $0), 4.0) }))

    @Test func theBaselineAveragesEachCalendarDayOverTheYearsAndSkipsNulls() {
        let normals = Climatology(series: [
            ("1991-11-20", 2.0), ("1992-11-20", 4.0), ("1993-11-20", nil), ("1991-11-21", 5.0), ("2000-02-29", 1.0),
        ])
        #expect(normals.normals["11-20"] == 3.0)
        #expect(normals.normals["11-21"] == 5.0)
        #expect(normals.normals["02-29"] == 1.0)
        #expect(normals.normals.count == 3)
    }

    @Test func theRecentWindowIsTheLatestSevenDaysWithDataNotTheNullsOfTheLag() throws {
        // The archive lags: the last days are null and must be neither zero nor counted.
        var series: [(date: String, meanCelsius: Double?)] = (10...24).map { (String(format: "2026-11-%02d", $0), 6.0) }
        series += (25...28).map { (String(format: "2026-11-%02d", $0), nil) }
        series[12] = ("2026-11-22", nil)  // a gap inside the window is skipped too
        let trend = try #require(ClimateTrend.make(series: series.shuffled(), climatology: november))
        #expect(
            trend.days.map(\.date) == [
                "2026-11-17", "2026-11-18", "2026-11-19", "2026-11-20", "2026-11-21", "2026-11-23", "2026-11-24",
            ])
        #expect(trend.recentMean == 6.0)
        #expect(trend.baselineMean == 4.0)
        #expect(trend.difference == 2.0)
    }

    @Test func noDayWithDataIsNoTrend() {
        #expect(ClimateTrend.make(series: [("2026-11-20", nil)], climatology: november) == nil)
        #expect(ClimateTrend.make(series: [("2026-11-20", 5.0)], climatology: Climatology(normals: [:])) == nil)
    }

    @Test func theSparklineIsDrawnAgainstTheNormal() throws {
        let days: [(date: String, meanCelsius: Double?)] = [
            ("2026-11-01", 4.0), ("2026-11-02", 6.0), ("2026-11-03", 2.0), ("2026-11-04", 4.1), ("2026-11-05", 14.0),
            ("2026-11-06", -6.0),
        ]
        let trend = try #require(ClimateTrend.make(series: days, climatology: november))
        let cells = Array(trend.sparkline)
        #expect(cells.count == 6, "one cell a day")
        #expect(cells[0] == "▄", "a normal day sits in the middle")
        #expect(cells[3] == "▄", "a tenth of a degree is still normal")
        #expect(cells[4] == "█" && cells[5] == "▁", "the extremes of the window reach the ends")
        #expect(cells[1] > cells[0] && cells[2] < cells[0], "warmer is taller, colder shorter")
        // An ordinary week (±0.5 °C) does not look dramatic: the scale is at least 2 °C,
        // so half a degree is one step, not the full height.
        let calm = try #require(
            ClimateTrend.make(series: [("2026-11-01", 4.5), ("2026-11-02", 3.5)], climatology: november))
        #expect(calm.sparkline == "▅▃")
    }

    @Test func temperaturesAndDifferencesInBothUnits() {
        #expect(TemperatureUnit.metric.formatDifference(celsius: 1.84) == "+1.8 °C")
        #expect(TemperatureUnit.imperial.formatDifference(celsius: 1.84) == "+3.3 °F", "a difference is ×1.8, no +32")
        #expect(TemperatureUnit.metric.formatDifference(celsius: -0.42) == "-0.4 °C")
        #expect(TemperatureUnit.metric.formatDifference(celsius: 0.04) == "±0.0 °C")
        #expect(TemperatureUnit.metric.format(celsius: 12.34) == "12.3 °C")
        #expect(TemperatureUnit.imperial.format(celsius: 12.34) == "54.2 °F")
        #expect(TemperatureUnit.metric.format(celsius: -0.01) == "0.0 °C", "never -0.0")
        #expect(TemperatureUnit.usual(forCountryCode: "US") == .imperial)
        #expect(TemperatureUnit.usual(forCountryCode: "pr") == .imperial)
        #expect(TemperatureUnit.usual(forCountryCode: "DE") == .metric)
        #expect(TemperatureUnit.usual(forCountryCode: nil) == .metric)
    }

    @Test func archiveAnswersWithNullsAndBrokenArrays() throws {
        let body =
            #"{"daily_units":{"time":"iso8601","temperature_2m_mean":"°C"},"daily":{"time":["2025-01-15","2025-01-16","2025-01-17"],"temperature_2m_mean":[0.0,2.3,null]}}"#
        let series = try OpenMeteoArchive.series(from: Data(body.utf8))
        #expect(series.map(\.date) == ["2025-01-15", "2025-01-16", "2025-01-17"])
        #expect(series.map(\.meanCelsius) == [0.0, 2.3, nil], "0 °C is a value, null is not")
        let uneven = #"{"daily":{"time":["2025-01-15","2025-01-16"],"temperature_2m_mean":[1.0]}}"#
        #expect(Self.isUndecodable(uneven))
        #expect(Self.isUndecodable(#"{"daily":{"time":["2025-"#))
    }

    static func isUndecodable(_ body: String) -> Bool {
        do {
            _ = try OpenMeteoArchive.series(from: Data(body.utf8))
            return false
        } catch {
            if case .undecodable = error { return true }
            return false
        }
    }
}
