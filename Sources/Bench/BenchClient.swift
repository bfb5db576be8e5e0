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
        var acknowledged: [MQTTMessageID] = []
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
        heard.withLock { heard in
            switch event {
            case .connected: heard.connected = true
            case .disconnected, .failed: heard.connected = false
            case .acknowledged(let mid): heard.acknowledged.append(mid)
            case .message(let topic, let payload, _): heard.received.append((topic, payload))
            case .unreadable: break
            }
        }
    }

    var isConnected: Bool { heard.withLock { $0.connected } }

    func takeAcknowledged() -> [MQTTMessageID] {
        heard.withLock { heard in
            defer { heard.acknowledged.removeAll() }
            return heard.acknowledged
        }
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
