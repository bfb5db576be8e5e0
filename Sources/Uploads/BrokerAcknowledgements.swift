import MQTT
import Platform

/// What owntracks-mqtt's broker connection says, for an upload that publishes one message
/// and waits for its PUBACK: whether it is connected, why not, and each acknowledgement.
///
/// Contract: ``listen()`` reads the connection's events (one reader: it runs while the
/// upload runs); ``publish(_:_:timeout:time:section:)`` is accepted on the PUBACK, a retry
/// when the broker is away or does not acknowledge within `timeout`, refused for good
/// when the broker refused the credentials.
final class BrokerAcknowledgements: Sendable {
    private struct State {
        var connected = false
        var problem: MQTTProblem?
        var waiting: [MQTTMessageID: OnceCell<Bool>] = [:]
        /// Acknowledgements that came before their waiter lay down.
        var early: Set<MQTTMessageID> = []
    }

    let client: any MQTTClient
    private let state = Lock(State())

    init(_ client: any MQTTClient) { self.client = client }

    func listen() async {
        for await event in client.events {
            let cell: OnceCell<Bool>? = state.withLock { state in
                switch event {
                case .connected:
                    state.connected = true
                    state.problem = nil
                case .disconnected(let problem):
                    state.connected = false
                    state.problem = problem
                case .failed(let problem):
                    state.connected = false
                    state.problem = problem
                case .acknowledged(let mid):
                    guard let cell = state.waiting.removeValue(forKey: mid) else {
                        state.early.insert(mid)
                        return nil
                    }
                    return cell
                case .message, .unreadable: break
                }
                return nil
            }
            cell?.set(true)
        }
    }

    func publish(_ topic: String, _ payload: String, timeout: Duration, time: any TimeSource, section: String) async
        -> UploadVerdict
    {
        let (connected, problem) = state.withLock { ($0.connected, $0.problem) }
        if let problem, problem.isPermanent { return .refused(problem.message(section: section)) }
        guard connected else {
            return .retry(after: nil, problem?.message(section: section) ?? "not connected to the broker")
        }
        let mid: MQTTMessageID
        do { mid = try client.publish(topic, payload) } catch { return .retry(after: nil, "\(error)") }
        let cell = OnceCell<Bool>()
        let already: Bool = state.withLock { state in
            if state.early.remove(mid) != nil { return true }
            state.waiting[mid] = cell
            return false
        }
        if already { return .accepted }
        let timer = Task {
            try? await time.sleep(for: timeout)
            cell.set(false)
        }
        let acknowledged = await cell.value
        timer.cancel()
        state.withLock { _ = $0.waiting.removeValue(forKey: mid) }
        if acknowledged { return .accepted }
        return .retry(after: nil, "the broker did not acknowledge within \(Int(timeout.seconds)) s")
    }
}
