import FleetWire
import Foundation
import TestSupport
import Testing

@testable import Fleet

/// When a device publishes again what the collector has not stored, on a manual clock.
@Suite struct AckWatchTests {
    @Test func aLaggingCollectorGetsTheRowsAgainOncePerTimeout() {
        let time = ManualTime()
        var watch = AckWatch(timeout: .seconds(120))
        #expect(watch.tick(outstanding: 5, at: time.now) == .none, "nothing published yet: nothing to wait for")
        watch.published(at: time.now)
        time.advance(by: .seconds(119))
        #expect(watch.tick(outstanding: 5, at: time.now) == .remind, "the hello again, not the rows")
        #expect(watch.tick(outstanding: 5, at: time.now) == .none)
        time.advance(by: .seconds(1))
        #expect(watch.tick(outstanding: 5, at: time.now) == .republish)
        #expect(watch.tick(outstanding: 5, at: time.now) == .none, "one republish, not a storm")
        time.advance(by: .seconds(120))
        #expect(watch.tick(outstanding: 5, at: time.now) == .republish)
    }

    /// A collector that has not acknowledged for 20 s hears the hello again once per wait
    /// (it names the newest row held: a collector that never sees the rows learns of them).
    @Test func aSilentCollectorIsRemindedOncePerWait() {
        let time = ManualTime()
        var watch = AckWatch(timeout: .seconds(120))
        watch.published(at: time.now)
        #expect(watch.deadline == time.now + .seconds(20), "woken for the reminder")
        time.advance(by: .seconds(20))
        #expect(watch.tick(outstanding: 5, at: time.now) == .remind)
        #expect(watch.tick(outstanding: 5, at: time.now) == .none, "once per wait")
        #expect(watch.deadline == time.now + .seconds(100), "then woken for the republish")
        time.advance(by: .seconds(100))
        #expect(watch.tick(outstanding: 5, at: time.now) == .republish)
        time.advance(by: .seconds(20))
        #expect(watch.tick(outstanding: 5, at: time.now) == .remind, "each wait has its reminder")
        // Progress starts a new wait, reminded afresh; a short timeout halves the reminder.
        watch.acknowledged(progress: true, outstanding: 2, at: time.now)
        time.advance(by: .seconds(19))
        #expect(watch.tick(outstanding: 2, at: time.now) == .none)
        #expect(AckWatch(timeout: .seconds(2)).reminder == .seconds(1))
    }

    @Test func progressRestartsTheWaitAndNothingOutstandingEndsIt() {
        let time = ManualTime()
        var watch = AckWatch(timeout: .seconds(10))
        watch.published(at: time.now)
        time.advance(by: .seconds(8))
        watch.acknowledged(progress: true, outstanding: 3, at: time.now)
        time.advance(by: .seconds(8))
        #expect(watch.tick(outstanding: 3, at: time.now) != .republish, "the collector is keeping up, only behind")
        watch.acknowledged(progress: false, outstanding: 3, at: time.now)
        time.advance(by: .seconds(2))
        #expect(watch.tick(outstanding: 3, at: time.now) == .republish, "an ack that covered nothing is no progress")
        watch.acknowledged(progress: true, outstanding: 0, at: time.now)
        #expect(!watch.isWaiting)
        time.advance(by: .seconds(100))
        #expect(watch.tick(outstanding: 0, at: time.now) == .none)
    }

    @Test func everyReconnectionPublishesAgain() {
        let time = ManualTime()
        var watch = AckWatch(timeout: .seconds(120))
        #expect(watch.reconnected(at: time.now) == .republish)
        time.advance(by: .seconds(60))
        #expect(watch.tick(outstanding: 1, at: time.now) != .republish, "the wait starts at the reconnection")
    }

    @Test func theMessagesRoundTripAndForeignOnesAreIgnored() {
        let ack = CollectorMessages.Ack(
            through: [.track: 42, .air: 0, .sensor: 7], revised: ["a3": 1],
            time: Date(timeIntervalSince1970: 1_795_000_000))
        #expect(CollectorMessages.Ack(json: ack.json) == ack)
        let replay = CollectorMessages.Replay(kind: .air, from: 1)
        #expect(CollectorMessages.Replay(json: replay.json) == replay)
        let hello = CollectorMessages.Hello(device: "pi", software: "airloc 1", first: [.track: 1, .air: 0])
        #expect(CollectorMessages.Hello(json: hello.json) == hello)
        #expect(
            CollectorMessages.Ack(json: ack.json.replacingOccurrences(of: "airloc.ack/1", with: "airloc.ack/2")) == nil)
        #expect(CollectorMessages.Replay(json: #"{"schema":"airloc.replay/1","kind":"track","from":true}"#) == nil)
        #expect(CollectorMessages.Replay(json: #"{"schema":"airloc.replay/1","kind":"wifi","from":3}"#) == nil)
        #expect(CollectorMessages.Ack(json: "garbage") == nil)
    }

    /// The stored ranges above `through`: merged, lowest first, at most 32; round-tripped;
    /// a damaged pair, a reversed range or an unknown kind left out of what is believed.
    @Test func storedRangesAreMergedCappedAndCheckedOnTheWayIn() throws {
        #expect(CollectorMessages.Ack.ranges([9, 5, 6, 7, 12, 13, 20]) == [5...7, 9...9, 12...13, 20...20])
        let many = CollectorMessages.Ack.ranges(stride(from: 100, through: 300, by: 2).map { Int64($0) })
        #expect(many.count == 32 && many.first == 100...100 && many.last == 162...162, "the lowest 32")
        let ack = CollectorMessages.Ack(
            through: [.track: 4], revised: [:], time: Date(timeIntervalSince1970: 1_795_000_000),
            stored: [.track: [6...8, 11...11], .air: []])
        #expect(ack.json.contains(#""stored":{"track":[[6,8],[11,11]]}"#), "\(ack.json)")
        #expect(CollectorMessages.Ack(json: ack.json) == ack)
        let hostile = ack.json.replacingOccurrences(
            of: #""track":[[6,8],[11,11]]"#, with: #""track":[[8,6],[0,3],[5],["a",9],[13,14]],"wifi":[[1,2]]"#)
        #expect(CollectorMessages.Ack(json: hostile)?.stored == [.track: [13...14]], "\(hostile)")
    }
}
