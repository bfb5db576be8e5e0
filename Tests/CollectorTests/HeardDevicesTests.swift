import FleetWire
import Foundation
import Settings
import Testing

@testable import Collector

/// What the collector keeps of the devices it hears: made-up ids on a broker without ACLs
/// are forgotten once quiet, and a device that comes back is read from the database again
/// before it is told anything.
@Suite struct HeardDevicesTests {
    static let date = Date(timeIntervalSince1970: 1_796_000_000)

    static func row(_ id: Int) -> String {
        #"{"schema":"airloc.log/1","id":"t\#(id)","kind":"track","time":"2026-11-18T10:00:00Z"}"#
    }

    static func batch(_ actions: [CollectorMachine.Action]) -> CollectorMachine.Batch? {
        actions.lazy.compactMap { if case .store(let batch) = $0 { batch } else { nil } }.first
    }

    @Test func aPrefixIsKeptOnlyWhereThePatternDoesNotGiveIt() {
        var devices = HeardDevices(pattern: "airloc/+")
        let now = ContinuousClock.now
        devices.heard("pi-4", prefix: "airloc/pi-4", at: now)
        devices.heard("pi-5", prefix: "elsewhere/pi-5", at: now)
        #expect(devices.prefix(of: "pi-4") == "airloc/pi-4" && devices.prefix(of: "pi-5") == "elsewhere/pi-5")
        #expect(HeardDevices.prefix(of: "pi", pattern: "fleet/+/site/+") == "fleet/pi/site/+")
        #expect(devices.prefix(of: "pi-6") == nil)
    }

    @Test func quietMadeUpIdsAreForgottenAndTheirMemoryGivenBack() {
        let start = ContinuousClock.now
        var machine = CollectorMachine.running(at: start, date: Self.date)
        for index in 0..<200 {
            let topic = "airloc/made-up-\(index)/" + (index < 100 ? "status" : "history")
            let actions = machine.received(
                topic: topic, payload: index < 100 ? "online" : Self.row(1), at: start, date: Self.date)
            if let batch = Self.batch(actions) {
                _ = machine.stored(batch, at: start, date: Self.date)
            }
        }
        // Their batch closes with its window; then they are told what is stored, and are quiet.
        var released = false
        var now = start
        while now < start + .seconds(700) {
            now += .seconds(1)
            let actions = machine.woke(at: now, date: Self.date)
            if let batch = Self.batch(actions) { _ = machine.stored(batch, at: now, date: Self.date) }
            if actions.contains(where: { if case .releaseMemory = $0 { true } else { false } }) { released = true }
            if now == start + .seconds(30) { #expect(machine.status(at: Self.date).devices == 200) }
        }
        #expect(released, "the memory given back once they were forgotten")
        #expect(machine.status(at: Self.date).devices == 0)
        #expect(machine.devices.isEmpty, "no ledger kept of a quiet device")
        // One comes back: it is read from the database with its next batch before any ack.
        let back = machine.received(topic: "airloc/made-up-150/history", payload: Self.row(2), at: now, date: Self.date)
        #expect(!back.contains { if case .publish = $0 { true } else { false } })
        now += .seconds(1)
        let batch = Self.batch(machine.woke(at: now, date: Self.date))
        #expect(batch?.read == ["made-up-150"], "read again before it is told anything")
        #expect(batch?.rows.first?.mayBeStored == true)
    }
}
