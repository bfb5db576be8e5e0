import Foundation
import Geo
import Testing

/// The times the command line takes: an ISO 8601 time or date, or a span from now.
@Suite struct TimeArgumentTests {
    let now = Date(timeIntervalSince1970: 1_796_300_000)

    @Test func aSpanCountsBackForAWindowAndAheadForAnExpiry() {
        #expect(TimeArgument.past("24h", now: now) == now.addingTimeInterval(-86_400))
        #expect(TimeArgument.past("90m", now: now) == now.addingTimeInterval(-5_400))
        #expect(TimeArgument.past("1.5h", now: now) == now.addingTimeInterval(-5_400))
        #expect(TimeArgument.ahead("7d", now: now) == now.addingTimeInterval(7 * 86_400))
        #expect(TimeArgument.ahead("30s", now: now) == now.addingTimeInterval(30))
    }

    @Test func anISOTimeIsTheSameEitherWay() {
        let day = Date(timeIntervalSince1970: 1_796_169_600)  // 2026-12-02T00:00Z
        #expect(TimeArgument.past("2026-12-02", now: now) == day)
        #expect(TimeArgument.ahead("2026-12-02T00:00Z", now: now) == day)
    }

    @Test func anythingElseIsNoTime() {
        for text in ["", "h", "-1h", "infd", "nand", "24x", "yesterday", "7 d"] {
            #expect(TimeArgument.past(text, now: now) == nil, "\(text)")
            #expect(TimeArgument.ahead(text, now: now) == nil, "\(text)")
        }
    }
}
