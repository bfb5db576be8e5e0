import FleetStore
import Foundation
import Testing

@testable import Collector

/// The small machines the collector's machine is made of, each alone on a clock of the
/// test's: what a user would notice through the collector (a device told at most once a
/// second, a retry that waits its pause, a lost transaction tried again at once a few
/// times only, rows that come back in front after a failed store).
@Suite struct CollectorPartsTests {
    static let start = ContinuousClock.now

    @Test func aDeviceIsToldAtMostOnceASecondHoweverManyBatchesMovedIt() {
        var acks = AckPacing()
        acks.owe(["pi#1", "pz#1"])
        #expect(acks.take(at: Self.start, force: false).owners == ["pi#1", "pz#1"])
        acks.owe("pi#1")
        let soon = acks.take(at: Self.start + .milliseconds(300), force: false)
        #expect(soon.owners.isEmpty && soon.wake == .milliseconds(700), "the second one waits out the second")
        #expect(acks.owes("pi#1"))
        #expect(acks.take(at: Self.start + .seconds(1), force: false).owners == ["pi#1"])
        acks.owe("pi#1")
        #expect(acks.take(at: Self.start + .milliseconds(1100), force: true).owners == ["pi#1"], "a stop says all")
    }

    @Test func aFailedStoreWaitsItsPauseAndReconnectsOnlyWhenTheConnectionBroke() {
        var link = StoreLink()
        let first = link.connected()
        let second = link.connected()
        #expect(first && !second, "the first connection is said, a reconnection is not")
        let failed = link.failed(.connect("server closed the connection"), reconnect: true, at: Self.start)
        #expect(failed.pause == .seconds(1) && failed.line != nil && link.isDown)
        #expect(link.woke(at: Self.start + .milliseconds(400)) == .waiting(.milliseconds(600)))
        #expect(link.woke(at: Self.start + .seconds(1)) == .connect)
        #expect(!link.isUp, "connecting: no store goes until it answers")
        _ = link.connected()
        let diskFull = DatabaseError.command(state: "53100", message: "disk full")
        let again = link.failed(diskFull, reconnect: false, at: Self.start + .seconds(2))
        #expect(again.pause == .seconds(2), "the pause doubles until rows are stored again")
        #expect(link.woke(at: Self.start + .seconds(4)) == .retry && link.isUp)
        #expect(link.ended(at: Self.start + .seconds(5)) != nil, "the fault's end is said once")
        #expect(link.ended(at: Self.start + .seconds(6)) == nil)
    }

    @Test func aLostTransactionIsTriedAgainAtOnceOnlyAFewTimesInARow() {
        var link = StoreLink()
        _ = link.connected()
        let deadlock = DatabaseError.command(state: "40P01", message: "deadlock detected")
        let answers = (0..<StoreLink.transientLimit + 2).map { _ in link.retriesAtOnce(deadlock, broken: false) }
        #expect(answers == [true, true, true, false, true], "then it is a fault like any other, counted afresh after")
        let broken = link.retriesAtOnce(deadlock, broken: true)
        #expect(!broken, "a broken connection is never retried at once")
        #expect(link.fatal(.newerSchema(found: 9, known: 3)) != nil)
        #expect(link.fatal(.connect("password authentication failed")) == nil, "connected once: retried")
        #expect(StoreLink().fatal(.connect("password authentication failed")) != nil, "at the start: stops")
    }

    @Test func rowsOfAFailedStoreComeBackInFrontMarkedAsMaybeStored() throws {
        var waiting = WaitingRows()
        let rows = try (1...3).map { try StoreLedgerTests.row("pi", "t\($0)") }
        for row in rows { waiting.append(row) }
        let opened = waiting.open(at: Self.start)
        let openedAgain = waiting.open(at: Self.start + .milliseconds(10))
        #expect(opened && !openedAgain, "the window opens with the first row only")
        let taken = waiting.take(2, at: Self.start + .seconds(1))
        #expect(taken.rows.map(\.id) == ["t1", "t2"] && waiting.rows.map(\.id) == ["t3"])
        #expect(waiting.windowLeft(.seconds(1), at: Self.start + .seconds(1)) == .seconds(1), "what stays waits anew")
        waiting.putBack(
            CollectorMachine.Batch(rows: taken.rows, devices: taken.updates, throughs: [:]), at: Self.start)
        #expect(waiting.rows.map(\.id) == ["t1", "t2", "t3"])
        #expect(waiting.rows.map(\.mayBeStored) == [true, true, nil])
    }

    @Test func theBrokerIsSaidLostOnceAndNotWhenTheCollectorLeftIt() {
        var broker = BrokerConnection()
        #expect(broker.connected(generation: 1, subscribed: "fleet/+/history", at: Self.start).count == 1)
        let dropped = broker.dropped()
        #expect(dropped)
        #expect(broker.trouble("cannot reach the broker", at: Self.start).count == 1)
        #expect(broker.trouble("cannot reach the broker", at: Self.start + .seconds(1)).isEmpty)
        let back = broker.connected(generation: 2, subscribed: "fleet/+/history", at: Self.start + .seconds(2))
        #expect(back.map(\.message).contains("the broker answers again"))
        broker.pause()
        let droppedWhilePaused = broker.dropped()
        #expect(!droppedWhilePaused && broker.isPaused, "left on purpose: nothing said")
    }
}
