import Foundation
import MQTT
import Platform

/// A broker connection for the benches' simulated devices and subscribers: airloc's own
/// client, run as its service, with what it says kept to be looked at (a bench paces on
/// the wall clock and looks; a service waits on the events instead).
final class BenchClient: Sendable {
    let client: any MQTTClient
    private struct Heard: Sendable {
        var connected = false
        /// The broker's acknowledgements so far.
        var acknowledged = 0
        var received: [(topic: String, payload: String)] = []
    }
    private let heard: GuardedState<Heard>
    private let context: ServiceContext
    private let running: Task<Void, Never>
    private let listening: Task<Void, Never>

    init(_ options: MQTTOptions) throws {
        let client = try MQTT.client(options)
        let (context, heard) = (ServiceContext(name: .other("bench")) { _ in }, GuardedState(Heard()))
        (self.client, self.context, self.heard) = (client, context, heard)
        running = Task { try? await client.run(context) }
        listening = Task {
            for await event in client.events { Self.record(event, in: heard) }
        }
    }

    private static func record(_ event: MQTTEvent, in heard: GuardedState<Heard>) {
        heard.change { heard in
            switch event {
            case .connected: heard.connected = true
            case .disconnected, .failed: heard.connected = false
            case .acknowledged: heard.acknowledged += 1
            case .message(let topic, let payload, _): heard.received.append((topic, payload))
            case .unreadable: break
            }
        }
    }

    /// Waits for the connection, woken by its events; false when `seconds` passed first.
    func waitConnected(seconds: Double) -> Bool { heard.wait(seconds: seconds) { $0.connected ? true : nil } ?? false }

    /// Waits for a message on a topic ending in `suffix` (taken with the others heard);
    /// false when `seconds` passed first.
    func waitForMessage(endingIn suffix: String, seconds: Double) -> Bool {
        heard.wait(seconds: seconds) { heard in
            guard heard.received.contains(where: { $0.topic.hasSuffix(suffix) }) else { return nil }
            heard.received.removeAll()
            return true
        } ?? false
    }

    /// Waits until the broker acknowledged `count` publishes in all, woken by its events;
    /// false when `seconds` passed first.
    func waitAcknowledged(_ count: Int, seconds: Double) -> Bool {
        heard.wait(seconds: seconds) { $0.acknowledged >= count ? true : nil } ?? false
    }

    func takeMessages() -> [(topic: String, payload: String)] {
        heard.withLock { heard in
            defer { heard.received.removeAll() }
            return heard.received
        }
    }

    func publish(_ topic: String, _ payload: String) throws -> MQTTMessageID { try client.publish(topic, payload) }
    func subscribe(_ topic: String) { try? client.subscribe(topic) }

    /// Stops the connection and waits for it to end.
    func close() {
        context.requestStop()
        let done = DispatchSemaphore(value: 0)
        let running = self.running
        Task {
            await running.value
            done.signal()
        }
        done.wait()
        listening.cancel()
    }
}
