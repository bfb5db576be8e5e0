import Collector
import FleetWire
import Foundation
import Settings

/// The fleet's wire, from both ends: what the collector makes of any message on its
/// topics (a history row, a hello, a status, from any topic), and what a logger makes of
/// an acknowledgement or a replay request (``CollectorMessages``).
enum WireFuzzing {
    static let now = Date(timeIntervalSince1970: 1_796_000_000)

    static let targets = [
        FuzzTarget("wire-collector", "a topic line and a payload, judged as the collector judges messages") { bytes in
            let (topic, payload) = FuzzInput.head(bytes)
            let text = FuzzInput.text(payload)
            // The collector's machine, started and connected, hearing the message (and, for
            // `retained`, the broker's stored copy of it).
            var settings = CollectSettings()
            settings.devices = topic.hasPrefix("k") ? .known : .any
            var machine = CollectorMachine(settings: settings)
            let start = ContinuousClock.now
            _ = machine.started(at: now)
            _ = machine.databaseConnected(serverVersion: 150_000, registered: ["pi"], at: start, date: now)
            _ = machine.brokerConnected(generation: 1, at: start, date: now)
            _ = machine.received(topic: topic, payload: text, retained: payload.first == 0x7B, at: start, date: now)
            _ = machine.woke(at: start + .seconds(2), date: now)
            precondition(machine.status(at: now).refused <= 1, "one message refused more than once")
            if let row = try? DeviceRow(device: "pi", payload: text, now: now) {
                precondition(row.device == "pi" && !row.id.isEmpty, "a row without its key")
            }
        },
        FuzzTarget("wire-logger", "an ack, a replay or a hello as a logger and a collector decode them") { bytes in
            let text = FuzzInput.text(bytes)
            // What decodes encodes back to a message that decodes to the same text again.
            if let ack = CollectorMessages.Ack(json: text) {
                precondition(CollectorMessages.Ack(json: ack.json)?.json == ack.json, "an ack that does not round-trip")
                precondition(ack.through.values.allSatisfy { $0 >= 0 }, "a negative through")
            }
            if let replay = CollectorMessages.Replay(json: text) {
                precondition(CollectorMessages.Replay(json: replay.json)?.json == replay.json, "a replay round trip")
            }
            if let hello = CollectorMessages.Hello(json: text) {
                precondition(CollectorMessages.Hello(json: hello.json)?.json == hello.json, "a hello round trip")
            }
        },
    ]
}
