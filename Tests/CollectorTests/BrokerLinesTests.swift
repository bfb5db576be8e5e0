import Foundation
import MQTT
import Settings
import Testing

@testable import Collector

/// A broker that drops the collector at every connection (another client taking its id)
/// made three lines a second (lost, subscribed, back); six a minute are said, and the next
/// names how many were left out.
@Suite struct BrokerLinesTests {
    @Test func aBrokerDroppingTheCollectorAgainAndAgainIsSaidSixTimesAMinute() {
        let date = Date(timeIntervalSince1970: 1_796_000_000)
        var machine = CollectorMachine(settings: CollectSettings())
        let start = ContinuousClock.now
        _ = machine.started(at: date)
        func lines(_ actions: [CollectorMachine.Action]) -> [String] {
            actions.compactMap { if case .say(let notice) = $0 { notice.message } else { nil } }
        }
        var said: [String] = []
        for second in 0..<20 {
            let now = start + .seconds(second)
            said += lines(machine.brokerConnected(generation: second + 1, at: now, date: date))
            said += lines(machine.brokerDown(.lost(place: "b:1883"), at: now + .milliseconds(500)))
        }
        #expect(said.count == 6, "\(said)")
        #expect(said.first?.hasPrefix("subscribed to") == true, "the first connection is said")
        let next = lines(machine.brokerConnected(generation: 99, at: start + .seconds(61), date: date))
        #expect(next.first?.hasSuffix("(53 such lines left out in the last minute)") == true, "\(next)")
    }
}
