import FleetWire
import Foundation
import MQTT
import Platform
import Settings
import Synchronization
import TestSupport
import Testing

@testable import Collector
@testable import FleetStore

/// The collector's loop in-process: a broker and a store of the test's own, time from a
/// manual clock that moves only when the test says. What a device is told, when.
@Suite struct CollectorTimingTests {
    /// A database that is up or down as the test says, keeping every batch it stored and,
    /// as PostgreSQL does, the ids it holds: what a device's reading returns.
    final class ScriptedStore: CollectorStore {
        private struct State {
            var up = true
            var opened = 0
            var batches: [[String]] = []
            var attempts = 0
            var maybe: [[Bool?]] = []
            var held: [StoreLedger.StreamKey: Set<Int64>] = [:]
        }
        private let state = Mutex(State())

        var up: Bool {
            get { state.withLock { $0.up } }
            set { state.withLock { $0.up = newValue } }
        }
        /// The row ids of each stored batch, in order.
        var batches: [[String]] { state.withLock { $0.batches } }
        /// Each stored batch's rows' `mayBeStored`, as the collector said it.
        var maybe: [[Bool?]] { state.withLock { $0.maybe } }
        var opened: Int { state.withLock { $0.opened } }
        /// Writes tried, whatever came of them.
        var attempts: Int { state.withLock { $0.attempts } }

        func open() async -> Result<StoreOpening, DatabaseError> {
            state.withLock { state in
                guard state.up else { return .failure(.connect("the test's database is down")) }
                state.opened += 1
                return .success(StoreOpening(serverVersion: 150_000))
            }
        }

        func write(_ batch: CollectorMachine.Batch) async -> Result<StoreOutcome, DatabaseError> {
            state.withLock { state in
                state.attempts += 1
                guard state.up else { return .failure(.command(state: "08006", message: "the server went away")) }
                var outcome = StoreOutcome()
                for (key, ids) in state.held where batch.read.contains(StreamOwner.split(key.device).device) {
                    var through: Int64 = 0
                    while ids.contains(through + 1) { through += 1 }
                    outcome.streams[key] = (through, ids.filter { $0 > through }.sorted())
                }
                for row in batch.rows {
                    state.held[StoreLedger.StreamKey(device: row.owner, kind: row.kind), default: []].insert(row.number)
                }
                state.batches.append(batch.rows.map(\.id))
                state.maybe.append(batch.rows.map(\.mayBeStored))
                return .success(outcome)
            }
        }

        func close() async {}
    }

    /// A collector running as its service against `broker` and `store`.
    struct Rig {
        let broker = InProcessBroker()
        let store = ScriptedStore()
        let time = ManualTime(sleepers: .waitForAdvance)
        let context: ServiceContext
        let run: Task<ServiceFailure?, Never>

        init(batch: Int = 500) throws {
            var settings = CollectSettings()
            settings.broker.url = "mqtt://broker.test"
            settings.database = "dbname=test"
            settings.batch = batch
            var plan = try CollectorPlan(settings: settings, stateDirectory: URL(fileURLWithPath: "/nonexistent"))
            plan.statusFile = nil
            let collector = Collector(plan: plan, client: broker, store: store)
            context = ServiceContext(name: .collector, time: time) { _ in }
            let context = self.context
            run = collector.start(context)
        }

        /// Connected and subscribed, as after a broker's CONNACK.
        func connected() async throws {
            broker.connect()
            try await Poll.until("subscribed") { broker.subscribed.count == 3 }
        }

        func row(_ id: String, device: String = "pi") {
            let kind = RowKind(id: id)!
            broker.deliver(
                "airloc/\(device)/history",
                #"{"schema":"airloc.log/1","id":"\#(id)","kind":"\#(kind.rawValue)","time":"2026-11-18T10:00:00Z"}"#)
        }

        /// The acknowledgements published for `device`, each as its track `through`.
        func acks(_ device: String = "pi") -> [Int64] {
            broker.published.filter { $0.topic == "airloc/\(device)/ack" }.compactMap {
                CollectorMessages.Ack(json: $0.payload)?.through[.track]
            }
        }

        func stop() async -> ServiceFailure? {
            context.requestStop()
            return await run.value
        }
    }

    @Test func aBatchClosesByItsWindowOrByItsSize() async throws {
        let rig = try Rig(batch: 3)
        try await rig.connected()
        rig.row("t1")
        // One row: it waits its window (one second of the clock), not more.
        await rig.time.waitForSleepers(1)
        #expect(rig.store.batches.isEmpty)
        rig.time.advance(by: .seconds(1))
        try await Poll.until("the window's batch stored") { rig.store.batches == [["t1"]] }
        try await Poll.until("its acknowledgement") { rig.acks() == [1] }
        // Three rows at once: stored at once, the clock standing still.
        let before = rig.time.elapsed
        for id in ["t2", "t3", "t4"] { rig.row(id) }
        try await Poll.until("the full batch stored") { rig.store.batches.last == ["t2", "t3", "t4"] }
        #expect(rig.time.elapsed == before)
        #expect(await rig.stop() == nil)
    }

    @Test func nothingIsAcknowledgedWhileTheDatabaseIsDownAndEverythingAfter() async throws {
        let rig = try Rig()
        try await rig.connected()
        rig.row("t1")
        await rig.time.waitForSleepers(1)
        rig.time.advance(by: .seconds(1))
        try await Poll.until("t1 acknowledged") { rig.acks() == [1] }
        rig.store.up = false
        rig.row("t2")
        await rig.time.waitForSleepers(1)
        rig.time.advance(by: .seconds(1))
        // The write failed and broke the connection: tried again after 1 s, then 2 s.
        await rig.time.waitForSleepers(1)
        #expect(rig.time.nextWake == .seconds(1))
        rig.time.advance(by: .seconds(1))
        await rig.time.waitForSleepers(1)
        #expect(rig.time.nextWake == .seconds(2), "the back-off doubles")
        #expect(rig.acks() == [1], "nothing acknowledged while the database is down")
        rig.store.up = true
        rig.time.advance(by: .seconds(2))
        try await Poll.until("t2 stored once the database is back") { rig.store.batches.last == ["t2"] }
        // Back: the device is read again from the database (a new connection may be to a
        // server that holds less), and told what it holds, t2 with it.
        try await Poll.until("t2 acknowledged") { rig.acks().last == 2 }
        #expect(rig.acks() == [1, 2], "never a smaller word in between")
        #expect(rig.store.opened == 2)
        // t1's device was not read yet (it may hold any id); t2's failed write may have
        // committed all the same.
        #expect(rig.store.maybe == [[true], [true]])
        #expect(await rig.stop() == nil)
    }

    /// A batch closed by its size fails half a second into its window: the retry is not
    /// lost to the window's earlier timer.
    @Test func aRetryOutlivesAnEarlierTimer() async throws {
        let rig = try Rig(batch: 2)
        try await rig.connected()
        rig.store.up = false
        rig.row("t1")
        await rig.time.waitForSleepers(1)
        rig.time.advance(by: .milliseconds(500))
        rig.row("t2")
        try await Poll.until("the write tried") { rig.store.attempts == 1 }
        rig.time.advance(by: .milliseconds(500))
        // The window's timer went off; the retry, due half a second later, is still asked for.
        try await Poll.until("the retry still to come") { rig.time.nextWake == .milliseconds(500) }
        rig.store.up = true
        rig.time.advance(by: .milliseconds(500))
        try await Poll.until("stored once the database is back") { rig.store.batches == [["t1", "t2"]] }
        #expect(await rig.stop() == nil)
    }

    @Test func aFullBufferLeavesTheBrokerUntilTheDatabaseIsBack() async throws {
        let rig = try Rig(batch: 5)
        try await rig.connected()
        rig.store.up = false
        // The first batch fails at its window; 20 rows (four batches) are held, then no more.
        rig.row("t1")
        await rig.time.waitForSleepers(1)
        rig.time.advance(by: .seconds(1))
        for number in 2...20 { rig.row("t\(number)") }
        try await Poll.until("the broker left") { rig.broker.paused }
        #expect(rig.acks().isEmpty)
        rig.store.up = true
        for _ in 0..<10 where rig.store.batches.isEmpty {
            await rig.time.waitForSleepers(1)
            rig.time.advance(by: rig.time.nextWake ?? .seconds(1))
            try await Poll.until("the loop looked") { rig.time.sleepers == 1 || !rig.store.batches.isEmpty }
        }
        try await Poll.until("the held rows stored") { rig.store.batches.joined().count == 20 }
        try await Poll.until("back at the broker") { !rig.broker.paused }
        rig.broker.connect()
        try await Poll.until("every row acknowledged") { rig.acks().last == 20 }
        #expect(await rig.stop() == nil)
    }

    @Test func aDeviceHearsAtMostOnceASecond() async throws {
        let rig = try Rig(batch: 1)
        try await rig.connected()
        rig.row("t1")
        try await Poll.until("t1 acknowledged") { rig.acks() == [1] }
        rig.row("t2")
        try await Poll.until("t2 stored") { rig.store.batches.count == 2 }
        // Stored within the second: its acknowledgement waits for the second to pass.
        await rig.time.waitForSleepers(1)
        #expect(rig.acks() == [1])
        rig.time.advance(by: .seconds(1))
        try await Poll.until("t2 acknowledged a second later") { rig.acks() == [1, 2] }
        #expect(await rig.stop() == nil)
    }

    @Test func aGapIsAskedForAfterItsGraceAndAgainLater() async throws {
        let rig = try Rig(batch: 1)
        try await rig.connected()
        for id in ["t1", "t2", "t4"] { rig.row(id) }
        try await Poll.until("three stored") { rig.store.batches.count == 3 }
        let replays: @Sendable () -> [String] = {
            rig.broker.published.filter { $0.topic == "airloc/pi/replay" }.map(\.payload)
        }
        #expect(replays().isEmpty)
        // t3 may still come: asked for after 10 s, then every 30 s while it stays missing.
        for _ in 0..<20 where replays().isEmpty {
            await rig.time.waitForSleepers(1)
            rig.time.advance(by: rig.time.nextWake ?? .seconds(1))
            try await Poll.until("the loop looked") { rig.time.sleepers == 1 || !replays().isEmpty }
        }
        #expect(rig.time.elapsed == .seconds(10), "asked when the grace ended")
        #expect(replays().compactMap(CollectorMessages.Replay.init(json:)) == [.init(kind: .track, from: 3, until: 3)])
        rig.row("t3")
        try await Poll.until("the gap closed") { rig.acks().last == 4 }
        #expect(await rig.stop() == nil)
    }
}
