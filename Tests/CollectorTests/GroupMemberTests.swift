import FleetWire
import Foundation
import Settings
import Testing

@testable import Collector
@testable import FleetStore

/// A collector of a `[collect] share` group as a pure state machine: what it subscribes to,
/// what it asks the store, and when it tells a device anything — only while it holds the
/// device's lease, only what the database's view says, at most once a second.
@Suite struct GroupMemberTests {
    static let date = Date(timeIntervalSince1970: 1_796_000_000)

    /// A member connected to its database and its broker at `start`.
    static func member(at start: ContinuousClock.Instant, batch: Int = 500) -> (
        CollectorMachine, [CollectorMachine.Action]
    ) {
        var settings = CollectSettings()
        settings.share = "fleet"
        settings.batch = batch
        var machine = CollectorMachine(settings: settings)
        _ = machine.started(at: date)
        _ = machine.databaseConnected(serverVersion: 150_000, at: start, date: date)
        let actions = machine.brokerConnected(generation: 1, at: start, date: date)
        return (machine, actions)
    }

    static func row(_ id: Int) -> String {
        #"{"schema":"airloc.log/1","id":"t\#(id)","kind":"track","time":"2026-11-18T10:00:00Z"}"#
    }

    static func batch(_ actions: [CollectorMachine.Action]) -> CollectorMachine.Batch? {
        actions.lazy.compactMap { if case .store(let batch) = $0 { batch } else { nil } }.first
    }

    /// The track `through` of each acknowledgement published.
    static func acks(_ actions: [CollectorMachine.Action]) -> [Int64] {
        actions.compactMap {
            guard case .publish(let topic, let payload, _) = $0, topic.hasSuffix("/ack") else { return nil }
            return CollectorMessages.Ack(json: payload)?.through[.track]
        }
    }

    static func view(owned: Bool, through: Int64, above: [Int64] = []) -> StoreOutcome {
        StoreOutcome(
            view: ShareView(
                owned: owned ? ["pi"] : [],
                streams: owned ? [.init(device: "pi", kind: .track): (through, above)] : [:]))
    }

    @Test func rowsComeThroughTheSharedSubscriptionAndHellosToEveryMember() {
        let (_, actions) = Self.member(at: .now)
        let topics = actions.flatMap { action -> [String] in
            if case .subscribe(let topics) = action { return topics }
            return []
        }
        #expect(topics.sorted() == ["$share/fleet/airloc/+/history", "airloc/+/hello", "airloc/+/status"])
    }

    @Test func onlyTheLeaseHolderAcknowledgesWhatTheDatabaseHoldsAtMostOnceASecond() throws {
        let start = ContinuousClock.now
        var (member, _) = Self.member(at: start)
        _ = member.received(topic: "airloc/pi/history", payload: Self.row(1), at: start, date: Self.date)
        // The round: the batch, marked as maybe stored, with the device whose lease to take.
        var now = start + .seconds(1)
        let first = try #require(Self.batch(member.woke(at: now, date: Self.date)))
        #expect(first.share == ["pi"] && first.round && first.rows.map(\.mayBeStored) == [true])
        // Another member holds the lease: this one says nothing, though it stored t1.
        var actions = member.stored(first, outcome: Self.view(owned: false, through: 0), at: now, date: Self.date)
        #expect(Self.acks(actions).isEmpty)
        // What it reports says so: the device heard and its row stored, no lease.
        var status = member.status(at: Self.date)
        #expect(status.devices == 1 && status.stored == 1 && status.leases == 0, "\(status)")
        // A round a second later with no rows: granted, the database's word is said (t1 to
        // t3, stored by any member).
        now += .seconds(1)
        let empty = try #require(Self.batch(member.woke(at: now, date: Self.date)))
        #expect(empty.rows.isEmpty && empty.share == [] && empty.round)
        actions = member.stored(
            empty, outcome: Self.view(owned: true, through: 0, above: [1, 2, 3]), at: now, date: Self.date)
        #expect(Self.acks(actions) == [3])
        status = member.status(at: Self.date)
        #expect(status.leases == 1 && status.acksPublished == 1, "\(status)")
        // Half a second later the view moved: it waits for the second to pass.
        now += .milliseconds(500)
        actions = member.stored(
            empty, outcome: Self.view(owned: true, through: 3, above: [4]), at: now, date: Self.date)
        #expect(Self.acks(actions).isEmpty)
        now += .milliseconds(500)
        actions = member.woke(at: now, date: Self.date)
        #expect(Self.acks(actions) == [4])
        // The same view again: nothing new, nothing said.
        now += .seconds(1)
        actions = member.stored(empty, outcome: Self.view(owned: true, through: 4), at: now, date: Self.date)
        #expect(Self.acks(actions).isEmpty)
        // The lease lost: what moved is said by the new owner, not here.
        now += .seconds(1)
        actions = member.stored(empty, outcome: Self.view(owned: false, through: 9), at: now, date: Self.date)
        #expect(Self.acks(actions).isEmpty)
    }

    @Test func fullBatchesBetweenRoundsStoreRowsWithoutReadingTheView() throws {
        let start = ContinuousClock.now
        var (member, _) = Self.member(at: start, batch: 2)
        _ = member.received(topic: "airloc/pi/history", payload: Self.row(1), at: start, date: Self.date)
        let round = try #require(Self.batch(member.woke(at: start + .seconds(1), date: Self.date)))
        #expect(round.round)
        var now = start + .seconds(1)
        _ = member.stored(round, outcome: Self.view(owned: true, through: 1), at: now, date: Self.date)
        // A tenth of a second later a full batch: stored at once, no round (nor its leases).
        now += .milliseconds(100)
        _ = member.received(topic: "airloc/pi/history", payload: Self.row(2), at: now, date: Self.date)
        let full = try #require(
            Self.batch(member.received(topic: "airloc/pi/history", payload: Self.row(3), at: now, date: Self.date)))
        #expect(full.rows.map(\.id) == ["t2", "t3"] && !full.round && full.share == ["pi"])
        #expect(full.throughs.keys.map(\.kind) == [.track], "the stream it stores in keeps its row")
        // Its commit tells the device nothing by itself: the next round's view will.
        let actions = member.stored(full, at: now, date: Self.date)
        #expect(Self.acks(actions).isEmpty)
    }

    @Test func aLeaseIsUsedUntilASecondBeforeItEnds() {
        var ownership = AckOwnership()
        let started = ContinuousClock.now
        ownership.granted(["pi"], roundStarted: started)
        #expect(ownership.owns("pi", at: started + .milliseconds(3_999)))
        #expect(!ownership.owns("pi", at: started + .seconds(ShareGroup.lease) - ShareGroup.margin))
        #expect(!ownership.owns("other", at: started))
        ownership.granted([], roundStarted: started + .seconds(1))
        #expect(!ownership.owns("pi", at: started + .seconds(1)))
    }

    @Test func aHelloIsCheckedAgainstTheDatabaseOnceTheDeviceIsOwned() throws {
        let start = ContinuousClock.now
        var (member, _) = Self.member(at: start)
        let hello = CollectorMessages.Hello(device: "pi", software: "test", first: [.track: 9], acked: [.track: 8])
        var actions = member.received(topic: "airloc/pi/hello", payload: hello.json, at: start, date: Self.date)
        // This member's memory holds nothing of pi: it does not take that for a restored database.
        #expect(!actions.contains { if case .say(let notice) = $0 { notice.level == .warning } else { false } })
        var now = start + .seconds(1)
        let round = try #require(Self.batch(member.woke(at: now, date: Self.date)))
        actions = member.stored(round, outcome: Self.view(owned: true, through: 5), at: now, date: Self.date)
        let said = actions.compactMap { if case .say(let notice) = $0 { notice.message } else { nil } }
        #expect(said.contains { $0.contains("pi's track rows were acknowledged beyond what the database holds") })
        #expect(Self.acks(actions) == [5], "told what the database holds, so that it sends the rest again")
        // The next round stores that it was rewound.
        now += .seconds(1)
        let next = try #require(Self.batch(member.woke(at: now, date: Self.date)))
        #expect(next.devices["pi"]?.rewound == Self.date)
    }

    static func leaves(_ actions: [CollectorMachine.Action]) -> Bool {
        actions.contains { if case .pauseBroker = $0 { true } else { false } }
    }

    static func rejoins(_ actions: [CollectorMachine.Action]) -> Bool {
        actions.contains { if case .resumeBroker = $0 { true } else { false } }
    }

    /// A member whose database is down leaves the broker at its next message, since it keeps
    /// no session there and the other members can store the rows; it keeps what it holds and
    /// comes back once that is stored. A lone collector holding one row stays (its
    /// persistent session queues only once it leaves, after four batches).
    @Test func aMemberWhoseDatabaseIsDownLeavesTheGroupUntilItIsBack() throws {
        let start = ContinuousClock.now
        var (member, _) = Self.member(at: start)
        let outage = DatabaseError.connect("server closed the connection unexpectedly")
        #expect(!Self.leaves(member.databaseFailed(outage, at: start)))
        var actions = member.received(topic: "airloc/pi/history", payload: Self.row(1), at: start, date: Self.date)
        #expect(Self.leaves(actions))
        #expect(member.status(at: Self.date).broker.text.hasPrefix("paused"))
        // Said once: what still arrives before the broker is gone is held, quietly.
        actions = member.received(topic: "airloc/pi/history", payload: Self.row(2), at: start, date: Self.date)
        #expect(!Self.leaves(actions) && actions.allSatisfy { if case .say = $0 { false } else { true } })
        // Back: the rows held are stored first, then the member rejoins.
        let now = start + .seconds(2)
        actions = member.databaseConnected(serverVersion: 150_000, at: now, date: Self.date)
        let held = try #require(Self.batch(actions))
        #expect(held.rows.map(\.id) == ["t1", "t2"] && !Self.rejoins(actions))
        #expect(
            Self.rejoins(member.stored(held, outcome: Self.view(owned: false, through: 0), at: now, date: Self.date)))

        var lone = CollectorMachine.running(at: start, date: Self.date)
        _ = lone.databaseFailed(outage, at: start)
        #expect(
            !Self.leaves(lone.received(topic: "airloc/pi/history", payload: Self.row(1), at: start, date: Self.date)))
    }
}
