import Foundation
import Testing

@testable import Plot

/// The plot's times as the clocks showed them, across Berlin's end of summer time
/// (2026-10-25 01:00Z: 03:00 CEST became 02:00 CET).
@Suite struct TimeSpanTests {
    @Test func eachMomentIsShownAtItsOwnOffset() {
        let start = Date(timeIntervalSince1970: 1_792_882_800)  // 2026-10-24T23:00:00Z, 01:00 CEST
        let end = start.addingTimeInterval(4 * 3600)  // 03:00Z, 04:00 CET
        let span = TimeSpan(start: start, end: end, zone: "Europe/Berlin")
        #expect(span.text == "2026-10-25 01:00–04:00 (UTC+2)")
        #expect(span.offset(at: start) == 7200 && span.offset(at: end) == 3600)
    }

    @Test func withoutAZoneItIsUTC() {
        let start = Date(timeIntervalSince1970: 1_796_025_600)
        let span = TimeSpan(start: start, end: start.addingTimeInterval(600), zone: "")
        #expect(span.text == "2026-11-30 08:00–08:10 (UTC)")
    }
}
