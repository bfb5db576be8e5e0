import FleetWire
import Foundation
import Geo
import TestSupport
import Testing

@testable import Logbook

/// The collector's side of the outbox in a real SQLite file: what an acknowledgement
/// marks stored, and what is published again.
@Suite struct LogbookStoredTests {
    typealias Rows = LogbookTests

    static func publishedLogbook(_ directory: TemporaryDirectory, collector: Bool = true) throws -> Logbook {
        let logbook = try Logbook(url: directory.file("logbook.sqlite"), outbox: true, collector: collector)
        let segment = try logbook.startSegment(at: Rows.hour, bootID: "boot", reason: "start")
        for second in [0.0, 5, 10, 15] { try logbook.append(Rows.point(second, segment: segment)) }
        try logbook.append(Rows.air(Rows.hour, source: .pending, segment: segment))
        try logbook.markSent(try logbook.unsent(excluding: [:], limit: 100).map { ($0.key, $0.revision) })
        return logbook
    }

    @Test func withoutACollectorRowsAreBornStored() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Self.publishedLogbook(directory, collector: false)
        #expect(try logbook.unstoredCount() == 0, "today's users: nothing waits for a collector")
        #expect(try logbook.requeueUnstored() == 0)
    }

    @Test func anAcknowledgementMarksStoredExactlyWhatItCovers() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Self.publishedLogbook(directory)
        #expect(try logbook.unstoredCount() == 5)
        #expect(try logbook.firstUnstored() == [.track: 1, .air: 1, .sensor: 1])
        #expect(try logbook.markStored(through: [.track: 2, .air: 0], revised: [:]) == 2)
        #expect(try logbook.unstoredCount() == 3)
        #expect(try logbook.firstUnstored()[.track] == 3)
        #expect(try logbook.requeueUnstored() == 3, "t3, t4 and a1 go out again")
        #expect(Set(try logbook.unsent(excluding: [:], limit: 10).map(\.key)) == ["t3", "t4", "a1"])
    }

    /// Rows stored above a gap count as stored (`log status` counts only what waits), and a
    /// later acknowledgement that no longer says so makes them unsent again, unless it still
    /// holds them in its ranges.
    @Test func storedRangesAboveAGapAreStoredUntilAnAcknowledgementForgetsThem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Self.publishedLogbook(directory)
        #expect(try logbook.markStored(through: [.track: 1], revised: [:], stored: [.track: [3...4]]) == 3)
        #expect(try logbook.unstoredCount() == 2, "t2 and a1 wait; t3 and t4 are stored")
        #expect(try logbook.firstUnstored()[.track] == 2, "the gap is still the first to come")
        #expect(try logbook.forgotten(kind: .track, above: 1, upTo: 4, except: [3...4]) == 0, "still held")
        #expect(try logbook.forgotten(kind: .track, above: 1, upTo: 4, except: [4...4]) == 1, "t3 forgotten")
        #expect(Set(try logbook.unsent(excluding: [:], limit: 10).map(\.key)) == ["t3"])
    }

    @Test func aRowChangedAfterItWasStoredIsUnstoredUntilItsRevisionIs() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Self.publishedLogbook(directory)
        try logbook.markStored(through: [.track: 4, .air: 1], revised: [:])
        #expect(try logbook.unstoredCount() == 0)
        var values = AirValues()
        values.usAQI = 60
        try logbook.settle(
            hour: Rows.hour, sent: .init(uncheckedLatitude: 52.52, longitude: 13.41), values: values, source: .live)
        #expect(try logbook.unstoredCount() == 1, "the settled hour is new content")
        #expect(try logbook.markStored(through: [.air: 1], revised: [:]) == 0, "through speaks of revision 0 only")
        #expect(try logbook.markStored(through: [:], revised: ["a1": 0]) == 0, "an older revision is not this one")
        #expect(try logbook.markStored(through: [:], revised: ["a1": 1]) == 1)
        #expect(try logbook.unstoredCount() == 0)
    }

    @Test func aReplayRequestSendsOnlyUnstoredRowsFromItsID() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Self.publishedLogbook(directory)
        try logbook.markStored(through: [.track: 1], revised: [:])
        try logbook.markStored(through: [:], revised: [:])
        #expect(try logbook.replay(kind: .track, from: 3) == 2, "t3 and t4")
        #expect(Set(try logbook.unsent(excluding: [:], limit: 10).map(\.key)) == ["t3", "t4"])
    }

    @Test func rowsThatNeverLeaveAreDoneWithForTheCollectorToo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook(url: directory.file("logbook.sqlite"), outbox: true, collector: true)
        let segment = try logbook.startSegment(at: Rows.hour, bootID: "boot", reason: "start")
        try logbook.append(Rows.point(0, segment: segment))
        try logbook.markSent([("t1", 0)], withheld: true)
        #expect(try logbook.unstoredCount() == 0, "position = none withholds track rows: nothing to wait for")
    }
}
