import FleetWire
import Foundation
import Settings
import Testing

@testable import Collector
@testable import FleetStore

/// What the broker hands over at a subscription (retained news) says what a device said
/// before, not that it speaks now: none of it moves the device's `last_seen`.
@Suite struct RetainedNewsTests {
    static let date = Date(timeIntervalSince1970: 1_796_000_000)

    /// After a collector's restart, a device switched off has only its retained hello at the
    /// broker: checking it once the device's streams are read must not say the device was
    /// heard (its `last_seen` moved to the restart).
    @Test func aRetainedHelloCheckedLaterIsNotTheDeviceHeard() throws {
        let start = ContinuousClock.now
        var machine = CollectorMachine.running(at: start, date: Self.date)
        let hello = CollectorMessages.Hello(
            device: "pi", software: "airloc test", first: [.track: 4], acked: [.track: 3])
        _ = machine.received(
            topic: "airloc/pi/hello", payload: hello.json, retained: true, at: start, date: Self.date)
        var heard: [Bool] = []
        for second in 1...3 {
            let now = start + .seconds(Double(second))
            if second == 2 {
                // Its retained status too (the batch that carries what the check left).
                _ = machine.received(
                    topic: "airloc/pi/status", payload: "offline", retained: true, at: now, date: Self.date + 2)
            }
            let batch = machine.woke(at: now, date: Self.date + Double(second)).lazy.compactMap {
                if case .store(let batch) = $0 { batch } else { nil }
            }.first
            guard let batch else { continue }
            heard += batch.devices.values.map(\.heard)
            var outcome = StoreOutcome()
            for device in batch.read { outcome.streams[.init(device: device, kind: .track)] = (3, []) }
            _ = machine.stored(batch, outcome: outcome, at: now, date: Self.date + Double(second))
        }
        #expect(heard.count == 2 && heard.allSatisfy { !$0 }, "\(heard)")
    }
}
