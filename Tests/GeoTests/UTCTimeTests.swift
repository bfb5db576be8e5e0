import Foundation
import Testing

@testable import Geo

/// UTC calendar time without ICU: what every time airloc writes for scripts and reads
/// from gpsd, Open-Meteo and the command line goes through it.
struct UTCTimeTests {
    /// Foundation's Gregorian calendar (ICU) as the oracle, over 20,000 instants from
    /// 1601 to 2399, before and after the epoch, leap days and centuries included.
    @Test func agreesWithFoundationsCalendarEverywhere() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(secondsFromGMT: 0))
        var generator = SystemRandomNumberGenerator()
        let instants: [Double] =
            (0..<20_000).map { _ in
                Double(Int64.random(in: -11_644_473_600_000...13_569_465_600_000, using: &generator)) / 1000
            } + [0, -0.001, 951_782_400, 951_868_799.999, 4_107_542_400, -2_208_988_800]
        for seconds in instants {
            let date = Date(timeIntervalSince1970: seconds)
            let time = UTCTime(date)
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: date)
            #expect(
                [time.year, time.month, time.day, time.hour, time.minute, time.second]
                    == [c.year, c.month, c.day, c.hour, c.minute, c.second].map { $0 ?? -1 },
                "\(seconds)")
            #expect(abs(time.date.timeIntervalSince1970 - seconds) < 0.0006, "\(seconds) round trip")
        }
    }

    @Test func writesTheLayoutsScriptsRead() throws {
        let date = Date(timeIntervalSince1970: 1_796_043_605.25)  // 2026-11-30T13:00:05.250Z
        let time = UTCTime(date)
        #expect(time.text(.day) == "2026-11-30")
        #expect(time.text(.minute, zone: false) == "2026-11-30T13:00")
        #expect(time.text(.second) == "2026-11-30T13:00:05Z")
        #expect(time.text(.millisecond) == "2026-11-30T13:00:05.250Z")
        #expect(UTCTime.iso8601(date) == "2026-11-30T13:00:05.250Z")
        #expect(UTCTime.iso8601(date.addingTimeInterval(-0.25)) == "2026-11-30T13:00:05Z")
        #expect(UTCTime.iso8601Seconds(date.addingTimeInterval(0.7)) == "2026-11-30T13:00:05Z")
        #expect(UTCTime(Date(timeIntervalSince1970: -1)).text(.second) == "1969-12-31T23:59:59Z")
    }

    @Test func readsWhatGpsdOpenMeteoAndPeopleWrite() throws {
        let base = 1_796_043_600.0  // 2026-11-30T13:00:00Z
        let cases: [(String, Double)] = [
            ("2026-11-30T13:00:05.000Z", base + 5),  // gpsd
            ("2026-11-30T13:00:05.25Z", base + 5.25),
            ("2026-11-30T13:00:05.123456789Z", base + 5.123),
            ("2026-11-30T13:00", base),  // Open-Meteo (its own zone: the caller's offset)
            ("2026-11-30T13:00Z", base),
            ("2026-11-30 13:00:05", base + 5),
            ("2026-11-30t13:00:05z", base + 5),
            ("2026-11-30T14:00:00+01:00", base),
            ("2026-11-30T07:30:00-0530", base),
            ("2026-11-30", base - 13 * 3600),
            ("2024-02-29T00:00Z", 1_709_164_800),
        ]
        for (text, expected) in cases {
            let parsed = try #require(UTCTime.parse(text), "\(text)")
            #expect(abs(parsed.timeIntervalSince1970 - expected) < 0.0006, "\(text)")
        }
    }

    @Test func refusesWhatNamesNoTime() {
        for text in [
            "", "2026", "2026-11", "2026-13-01", "2026-02-29", "2023-02-29T00:00Z", "2026-11-31",
            "2026-11-30T24:00Z", "2026-11-30T13:60Z", "2026-11-30T13:00:60Z", "2026-11-30T13", "2026-11-30T13:00:05.",
            "2026-11-30T13:00:05Zjunk", "26-11-30", "2026-11-30T13:00+25:00", "yesterday", "2026-1-30",
            "0000-01-01",
        ] {
            #expect(UTCTime.parse(text) == nil, "\(text)")
        }
        #expect(UTCTime(year: 2026, month: 2, day: 29) == nil)
        #expect(UTCTime(year: 2000, month: 2, day: 29) != nil)
        #expect(UTCTime(year: 1900, month: 2, day: 29) == nil)
    }
}
