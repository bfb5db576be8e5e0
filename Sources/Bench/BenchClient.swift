import Foundation
import MQTT
import Platform

/// A broker connection for the benches' simulated devices and subscribers: airloc's own
/// client, run as its service, with what it says kept to be looked at (a bench paces on
/// the wall clock and looks; a service waits on the events instead).
final class BenchClient: @unchecked Sendable {
    let client: any MQTTClient
    private let lock = NSLock()
    private var connected = false
    private var acknowledged: [MQTTMessageID] = []
    private var received: [(topic: String, payload: String)] = []
    private let context = ServiceContext(name: "bench") { _ in }
    private var running: Task<Void, Never>?
    private var listening: Task<Void, Never>?

    init(_ options: MQTTOptions) throws {
        client = try MQTT.client(options)
        let (client, context) = (self.client, self.context)
        running = Task { try? await client.run(context) }
        listening = Task { [weak self] in
            for await event in client.events { self?.record(event) }
        }
    }

    private func record(_ event: MQTTEvent) {
        lock.withLock {
            switch event {
            case .connected: connected = true
            case .disconnected, .failed: connected = false
            case .acknowledged(let mid): acknowledged.append(mid)
            case .message(let topic, let payload): received.append((topic, payload))
            case .unreadable: break
            }
        }
    }

    var isConnected: Bool { lock.withLock { connected } }

    func takeAcknowledged() -> [MQTTMessageID] {
        lock.withLock {
            defer { acknowledged.removeAll() }
            return acknowledged
        }
    }

    func takeMessages() -> [(topic: String, payload: String)] {
        lock.withLock {
            defer { received.removeAll() }
            return received
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
            await running?.value
            done.signal()
        }
        done.wait()
        listening?.cancel()
    }
}
