import FieldLog
import Foundation
import Geo
import Testing

@testable import Logbook

/// When GPS time is believed over this device's clock, and when it cannot be.
struct GPSClockTests {
    static let release = UTCTime.parse("2026-11-30")!

    static func fix(_ time: Date) -> Fix {
        Fix(
            coordinate: Coordinate(uncheckedLatitude: 52.52, longitude: 13.405), source: .gps, time: time,
            mode: .threeD)
    }

    /// Feeds one fix a second for `seconds`, the receiver saying `gps` + i while the
    /// system clock says `system` + i; returns every verdict.
    static func feed(_ clock: inout GPSClock, gps: Date, system: Date, seconds: Int = 10) -> [GPSClock.Verdict] {
        (0..<seconds).map { i in
            clock.observe(fix(gps.addingTimeInterval(Double(i))), system: system.addingTimeInterval(Double(i)))
        }
    }

    /// A Pi without a real-time clock boots at 2000-01-01: GPS corrects it, as before.
    @Test func aClockAt2000IsCorrectedByGPS() {
        var clock = GPSClock(notBefore: Self.release)
        let truth = UTCTime.parse("2026-12-01T10:00:00Z")!
        let verdicts = Self.feed(&clock, gps: truth, system: UTCTime.parse("2000-01-01")!)
        #expect(verdicts.filter { $0 != .unchanged }.count == 1)
        #expect(clock.trusted && clock.offset > 26 * 365 * 86_400)
    }

    /// The BU-353-S4 capture's receiver, recorded 2014-12-31, says 2034-08-16: with a
    /// system clock that looks right, that is not believed; said once, rows keep the clock.
    @Test func aReceiverYearsAheadOfAClockThatLooksRightIsNotBelieved() {
        var clock = GPSClock(notBefore: Self.release)
        var first = GPSClock(notBefore: Self.release)
        _ = first.observe(
            Self.fix(UTCTime.parse("2034-08-16T03:07:19Z")!), system: UTCTime.parse("2026-12-01T10:00:00Z")!)
        #expect(first.isJudged, "judged at the first disbelieved fix: the rows keep the clock for good")
        let verdicts = Self.feed(
            &clock, gps: UTCTime.parse("2034-08-16T03:07:19Z")!, system: UTCTime.parse("2026-12-01T10:00:00Z")!)
        let said = verdicts.compactMap { verdict -> String? in
            if case .disbelieved(let why) = verdict { return why } else { return nil }
        }
        #expect(said.count == 1, "said once: \(verdicts)")
        #expect(said.first?.contains("7.7 years ahead") == true && said.first?.contains("week-number") == true)
        #expect(!clock.trusted && clock.offset == 0)
        let now = UTCTime.parse("2026-12-01T10:01:00Z")!
        #expect(clock.stamp(now) == (now, "system"))
        #expect(clock.isJudged, "the air is logged all the same, by the system clock")
    }

    /// A time before this release cannot be now, whatever the system clock says.
    @Test func aTimeBeforeTheReleaseIsNeverBelieved() {
        var clock = GPSClock(notBefore: Self.release)
        let verdicts = Self.feed(
            &clock, gps: UTCTime.parse("2014-12-31T12:00:00Z")!, system: UTCTime.parse("2000-01-01")!)
        #expect(verdicts.contains { if case .disbelieved = $0 { return true } else { return false } })
        #expect(!clock.trusted && clock.offset == 0)
    }

    /// A clock that is merely behind (a Pi whose saved clock is from its last shutdown,
    /// weeks ago) is still corrected.
    @Test func aClockWeeksBehindIsStillCorrected() {
        var clock = GPSClock(notBefore: Self.release)
        let truth = UTCTime.parse("2027-02-01T10:00:00Z")!
        let verdicts = Self.feed(&clock, gps: truth, system: UTCTime.parse("2026-12-05T08:00:00Z")!)
        #expect(verdicts.contains { if case .corrected = $0 { return true } else { return false } })
        #expect(clock.trusted)
    }
}
