import FleetWire
import Foundation
import Settings
import Testing

@testable import Collector
@testable import FleetStore

/// A device whose rows do not reach the collector (another subscriber in the share group
/// takes them, an ACL drops them) while it says it holds them: reported after 30 s of no
/// movement, never while its rows arrive, however slowly.
@Suite struct DevicesBehindTests {
    static let date = Date(timeIntervalSince1970: 1_796_000_000)

    static func reach(_ through: Int64, highest: Int64? = nil) -> [RowKind: (through: Int64, highest: Int64)] {
        [.track: (through, highest ?? through)]
    }

    @Test func aClaimTheStoreDoesNotReachIsReportedOnceItHasNotMovedFor30Seconds() {
        var behind = DevicesBehind()
        behind.claimed([.track: 10], by: "pi")
        behind.look(at: "pi", reach: Self.reach(4), date: Self.date)
        #expect(DevicesBehind.reported(behind.behind, at: Self.date + 29).devices.isEmpty)
        let late = DevicesBehind.reported(behind.behind, at: Self.date + 45)
        #expect(late.devices == ["pi"] && late.longest == 45)
        // Rows arrive, slowly: every move starts the wait again (a backlog being drained).
        behind.look(at: "pi", reach: Self.reach(6), date: Self.date + 50)
        #expect(DevicesBehind.reported(behind.behind, at: Self.date + 60).devices.isEmpty)
        // The same reach looked at again is no movement.
        behind.look(at: "pi", reach: Self.reach(6), date: Self.date + 70)
        #expect(DevicesBehind.reported(behind.behind, at: Self.date + 85).devices == ["pi"])
        // Everything claimed is stored: no longer behind.
        behind.look(at: "pi", reach: Self.reach(10), date: Self.date + 90)
        #expect(behind.behind.isEmpty)
    }

    @Test func aGapCountsWithoutAnyClaimAndRestOrADatabaseFaultEndsTheWait() {
        var behind = DevicesBehind()
        // An older device says nothing of what it holds; rows stored above a gap do.
        behind.look(at: "pi", reach: Self.reach(3, highest: 9), date: Self.date)
        #expect(DevicesBehind.reported(behind.behind, at: Self.date + 30).devices == ["pi"])
        behind.reset()
        #expect(behind.behind.isEmpty, "nothing moves while the database is down: that fault is said instead")
        behind.look(at: "pi", reach: Self.reach(3, highest: 9), date: Self.date + 40)
        behind.rest(device: "pi")
        #expect(behind.behind.isEmpty, "a device that said offline cannot send")
    }

    @Test func aNewIncarnationsHelloReplacesTheOldOnesClaims() {
        var behind = DevicesBehind()
        let old = StreamOwner.name(device: "pi", incarnation: "a")
        let new = StreamOwner.name(device: "pi", incarnation: "b")
        behind.claimed([.track: 500], by: old)
        behind.look(at: old, reach: Self.reach(10), date: Self.date)
        behind.claimed([.track: 2], by: new)
        behind.look(at: new, reach: Self.reach(2), date: Self.date)
        #expect(behind.behind.isEmpty, "the old logbook's rows are no longer coming: \(behind.behind)")
    }

    @Test func theKeptWaitsAreBoundedKeepingTheOldest() {
        var behind = DevicesBehind()
        for number in 0..<100 {
            behind.claimed([.track: 5], by: "pi-\(number)")
            behind.look(at: "pi-\(number)", reach: Self.reach(0), date: Self.date + Double(number))
        }
        #expect(behind.behind.count == DevicesBehind.kept)
        #expect(behind.behind["pi-0"] != nil && behind.behind["pi-99"] == nil)
    }

    /// The machine alone: a device's rows stop arriving while its hellos say it holds more;
    /// its status and `/metrics` say so after 30 s, and stop once the rows come.
    @Test func theCollectorSaysWhichDeviceHoldsRowsThatNeverArrive() throws {
        let start = ContinuousClock.now
        var machine = CollectorMachine.running(at: start, date: Self.date)
        func row(_ id: Int) -> String {
            #"{"schema":"airloc.log/1","id":"t\#(id)","kind":"track","time":"2026-11-18T10:00:00Z"}"#
        }
        func store(at seconds: Double) throws {
            let now = start + .seconds(seconds)
            let actions = machine.woke(at: now, date: Self.date + seconds)
            let batch = try #require(
                actions.lazy.compactMap { if case .store(let batch) = $0 { batch } else { nil } }.first)
            var outcome = StoreOutcome()
            for device in batch.read { outcome.streams[.init(device: device, kind: .track)] = (0, []) }
            _ = machine.stored(batch, outcome: outcome, at: now, date: Self.date + seconds)
        }
        func hello(last: Int64, at seconds: Double) {
            let hello = CollectorMessages.Hello(
                device: "pi", software: "airloc test", first: [.track: 1], last: [.track: last])
            _ = machine.received(
                topic: "airloc/pi/hello", payload: hello.json, at: start + .seconds(seconds), date: Self.date + seconds)
        }
        _ = machine.received(topic: "airloc/pi/history", payload: row(1), at: start, date: Self.date)
        hello(last: 1, at: 0)
        try store(at: 1)
        #expect(machine.status(at: Self.date + 1).behind.isEmpty, "all it holds is stored")
        // Its next rows go elsewhere; 20 s later its hello says it holds them.
        hello(last: 4, at: 21)
        try store(at: 22)
        #expect(DevicesBehind.reported(machine.status(at: Self.date + 40).behind, at: Self.date + 40).devices.isEmpty)
        let state = machine.status(at: Self.date + 55)
        #expect(DevicesBehind.reported(state.behind, at: Self.date + 55).devices == ["pi"])
        let metrics = CollectorMetrics.text(state, openMetrics: false, now: Self.date + 55)
        #expect(metrics.contains("airloc_collector_devices_behind 1"), "\(metrics)")
        #expect(metrics.contains("airloc_collector_behind_seconds 34"), "\(metrics)")
        // The rows come after all (the other subscriber left): nothing behind.
        for id in 2...4 {
            _ = machine.received(
                topic: "airloc/pi/history", payload: row(id), at: start + .seconds(60), date: Self.date + 60)
        }
        try store(at: 61)
        #expect(machine.status(at: Self.date + 61).behind.isEmpty)
        let quiet = CollectorMetrics.text(machine.status(at: Self.date + 61), openMetrics: false, now: Self.date + 61)
        #expect(quiet.contains("airloc_collector_devices_behind 0"), "\(quiet)")
    }
}
