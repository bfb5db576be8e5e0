import Foundation
import TestSupport
import Testing

@testable import Collector

/// The collector's ledger of what is stored, on a manual clock: what each device is told,
/// and when a gap is asked for.
@Suite struct StoreLedgerTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    static func row(_ device: String, _ id: String, revision: Int64 = 0) throws -> DeviceRow {
        let kind = ["t": "track", "a": "air", "s": "sensor"][String(id.prefix(1))]!
        return try DeviceRow(
            device: device,
            payload:
                #"{"schema":"airloc.log/1","id":"\#(id)","kind":"\#(kind)","time":"2026-11-18T10:00:00Z","revision":\#(revision)}"#,
            now: now)
    }

    @Test func throughAdvancesOnlyOverContiguousIDs() throws {
        let time = ManualTime()
        var ledger = StoreLedger()
        var acks = ledger.stored(
            [try Self.row("pi", "t1"), try Self.row("pi", "t2"), try Self.row("pi", "t4")], at: time.now)
        #expect(acks.map(\.through[.track]) == [2], "t3 is missing: the device hears of t1-t2 only")
        #expect(acks.first?.stored == [.track: [4...4]], "and that t4 is stored above the gap")
        acks = ledger.stored([try Self.row("pi", "t3")], at: time.now)
        #expect(acks.first?.through[.track] == 4, "t3 closes the gap, and t4 counts with it")
        #expect(acks.first?.through[.air] == 0)
        #expect(acks.first?.stored == [:], "nothing above the gap any more")
    }

    /// Which ids may have a stored version (the partitioned tables look for one in every
    /// month only for those): stored ones, ids at or below `through`, none other.
    @Test func onlyIDsTheLedgerHoldsMayBeStored() throws {
        let time = ManualTime()
        var ledger = StoreLedger()
        ledger.loaded(device: "pi", kind: .track, through: 3, storedAbove: [7])
        _ = ledger.stored([try Self.row("pi", "t9")], at: time.now)
        let held = try ["t1", "t3", "t4", "t7", "t8", "t9", "t10", "a1"].filter {
            ledger.mayHold(try Self.row("pi", $0))
        }
        #expect(held == ["t1", "t3", "t7", "t9"])
        #expect(!ledger.mayHold(try Self.row("other", "t1")), "a device never heard of")
    }

    /// A database restored from a backup holds less than the device was told: its hello's
    /// `acked` names the kinds, and its first unstored id does not close the gap.
    @Test func aStoreThatForgotRowsSaysSoAndIsNotToldTheyAreStored() throws {
        var ledger = StoreLedger()
        ledger.loaded(device: "pi", kind: .track, through: 30, storedAbove: [])
        #expect(ledger.forgot(device: "pi", acked: [.track: 38, .air: 0]) == [.track])
        #expect(ledger.forgot(device: "pi", acked: [.track: 30]).isEmpty, "holding what was acknowledged")
        #expect(ledger.forgot(device: "other", acked: [:]).isEmpty)
    }

    @Test func aGapIsAskedForAfterItsGraceAndNotAgainAtOnce() throws {
        let time = ManualTime()
        var ledger = StoreLedger(gapGrace: .seconds(10), replayEvery: .seconds(30))
        _ = ledger.stored([try Self.row("pi", "t1"), try Self.row("pi", "t5")], at: time.now)
        #expect(ledger.due(at: time.now).isEmpty, "a gap may be rows still on their way")
        time.advance(by: .seconds(10))
        #expect(
            ledger.due(at: time.now) == [.init(device: "pi", kind: .track, from: 2, until: 4)],
            "the gap only: t5 is stored")
        time.advance(by: .seconds(29))
        #expect(ledger.due(at: time.now).isEmpty, "asked 29 s ago: not again yet")
        time.advance(by: .seconds(1))
        #expect(ledger.due(at: time.now).count == 1, "still open after 30 s: asked again")
        _ = ledger.stored((2...4).map { try! Self.row("pi", "t\($0)") }, at: time.now)
        time.advance(by: .seconds(60))
        #expect(ledger.due(at: time.now).isEmpty, "closed: nothing to ask")
        #expect(ledger.acknowledgement(for: "pi").through[.track] == 5)
    }

    /// A member killed in a share group leaves every other id of a device missing: all the
    /// gaps are asked for in one round, each its own range, not one per round.
    @Test func everyGapOfAStreamIsAskedForInOneRound() throws {
        let time = ManualTime()
        var ledger = StoreLedger(gapGrace: .seconds(10), replayEvery: .seconds(30))
        _ = ledger.stored([1, 2, 5, 6, 9, 11].map { try! Self.row("pi", "t\($0)") }, at: time.now)
        time.advance(by: .seconds(10))
        #expect(
            ledger.due(at: time.now) == [
                .init(device: "pi", kind: .track, from: 3, until: 4),
                .init(device: "pi", kind: .track, from: 7, until: 8),
                .init(device: "pi", kind: .track, from: 10, until: 10),
            ])
        let many = Set((1...2000).map { Int64($0 * 2) })
        #expect(StoreLedger.gaps(through: 0, above: many).count == StoreLedger.rangesAtMost, "a round is bounded")
    }

    @Test func aHelloSaysWhichIDsAreNeverComing() throws {
        let time = ManualTime()
        var ledger = StoreLedger()
        // Rows 1-99 were logged before the device had a broker: they are not expected.
        _ = ledger.stored([try Self.row("pi", "t100"), try Self.row("pi", "t101")], at: time.now)
        #expect(ledger.acknowledgement(for: "pi").through[.track] == 0)
        let ack = ledger.declared(device: "pi", first: [.track: 100, .air: 1])
        #expect(ack?.through[.track] == 101)
        #expect(ledger.declared(device: "pi", first: [.track: 50]) == nil, "a lower first moves nothing back")
    }

    /// A hello retained by anyone on an open broker, naming the device's real incarnation
    /// and a first id of 10^15, once made the collector acknowledge every id below it: the
    /// device's next rows were marked stored and were in no table. A claim alone now moves
    /// nothing; rows that come are acknowledged as they are stored.
    @Test func aForgedHelloCannotAcknowledgeRowsThatWereNeverStored() throws {
        let time = ManualTime()
        var ledger = StoreLedger()
        _ = ledger.stored((1...67).map { try! Self.row("pi", "t\($0)") }, at: time.now)
        #expect(ledger.declared(device: "pi", first: [.track: 999_999_999_999_999]) == nil, "the claim moves nothing")
        #expect(ledger.acknowledgement(for: "pi").through[.track] == 67)
        let acks = ledger.stored((68...77).map { try! Self.row("pi", "t\($0)") }, at: time.now)
        #expect(acks.first?.through[.track] == 77, "rows 68-77 stored, nothing beyond")
        // The device's rows 78-80 are lost in flight; 81 comes: a gap to ask for, not a
        // range to take on the forger's word.
        _ = ledger.stored([try Self.row("pi", "t81")], at: time.now)
        #expect(ledger.acknowledgement(for: "pi").through[.track] == 77)
        #expect(ledger.hasGap(device: "pi"))
    }

    /// The honest case the claim is for: rows 1-99 logged before the device had a broker.
    /// Its hello comes before any row; the first row stored (100) bears the claim out.
    @Test func aHelloBeforeItsRowsIsBelievedOnceTheirFirstIsStored() throws {
        let time = ManualTime()
        var ledger = StoreLedger()
        #expect(ledger.declared(device: "pi", first: [.track: 100]) == nil)
        #expect((ledger.acknowledgement(for: "pi").through[.track] ?? 0) == 0)
        let acks = ledger.stored([try Self.row("pi", "t100"), try Self.row("pi", "t101")], at: time.now)
        #expect(acks.first?.through[.track] == 101)
        // A row below the claim (a replay of an older one) keeps the ids between open.
        var replayed = StoreLedger()
        _ = replayed.declared(device: "pi", first: [.track: 100])
        _ = replayed.stored([try Self.row("pi", "t95"), try Self.row("pi", "t100")], at: time.now)
        #expect(replayed.acknowledgement(for: "pi").through[.track] == 0)
    }

    @Test func revisedRowsAreListedAtTheirNewestRevisionBoundedInNumber() throws {
        let time = ManualTime()
        var ledger = StoreLedger(revisedLimit: 3)
        _ = ledger.stored([try Self.row("pi", "a1", revision: 2), try Self.row("pi", "a1", revision: 1)], at: time.now)
        #expect(ledger.acknowledgement(for: "pi").revised == ["a1": 2], "an older replay does not lower it")
        _ = ledger.stored((2...5).map { try! Self.row("pi", "t\($0)", revision: 1) }, at: time.now)
        #expect(ledger.acknowledgement(for: "pi").revised.keys.sorted() == ["t3", "t4", "t5"], "the newest three")
    }

    @Test func devicesAreKeptApart() throws {
        let time = ManualTime()
        var ledger = StoreLedger()
        let acks = ledger.stored(
            [try Self.row("a", "t1"), try Self.row("b", "t1"), try Self.row("b", "t2")], at: time.now)
        #expect(acks.map(\.device) == ["a", "b"])
        #expect(acks.map { $0.through[.track] } == [1, 2])
    }

    @Test func whatTheDatabaseHeldIsWhereARestartBegins() {
        var ledger = StoreLedger()
        ledger.loaded(device: "pi", kind: .air, through: 3, storedAbove: [4, 5, 7])
        #expect(ledger.acknowledgement(for: "pi").through[.air] == 5)
        #expect(ledger.gaps[.init(device: "pi", kind: .air)]?.above == 1)
    }
}
