import Foundation
import MQTT
import Platform

/// An ``MQTTClient`` that is its own broker, in-process: the publisher's, the uploads' and
/// the collector's logic run against it without libmosquitto, and the test says what the
/// broker does (connect, acknowledge, deliver, drop) and reads what was published.
///
/// Contract: nothing happens on its own. ``connect()`` posts `.connected` with the next
/// generation; ``acknowledge(_:)`` (or `autoAcknowledge`) posts the PUBACK of a
/// published message; ``deliver(_:_:)`` a message on a topic; ``drop()`` a lost
/// connection. Publishing while not connected throws, as a real client's may lose it.
/// ``Service/run(_:)`` returns at the stop request, after the farewell is "published".
public final class InProcessBroker: MQTTClient, @unchecked Sendable {
    public struct Published: Sendable, Equatable {
        public var id: MQTTMessageID
        public var topic: String
        public var payload: String
        public var retain: Bool
    }

    public let options: MQTTOptions
    public let name: ServiceName
    public let events: AsyncStream<MQTTEvent>
    private let post: AsyncStream<MQTTEvent>.Continuation
    private let lock = NSLock()
    private var generation = 0
    private var connected = false
    private var nextID: MQTTMessageID = 0
    private var log: [Published] = []
    private var subscriptions: [String] = []
    private var unacknowledged: [MQTTMessageID] = []
    /// Acknowledge each publish at once.
    public var autoAcknowledge: Bool {
        get { lock.withLock { auto } }
        set { lock.withLock { auto = newValue } }
    }
    private var auto = false
    public private(set) var paused = false

    public init(
        options: MQTTOptions = MQTTOptions(host: "broker.test", port: 1883, clientID: "test"), name: ServiceName = .mqtt
    ) {
        self.options = options
        self.name = name
        (events, post) = AsyncStream<MQTTEvent>.makeStream()
    }

    /// Everything published so far, in order.
    public var published: [Published] { lock.withLock { log } }
    /// The topics subscribed to so far, in order.
    public var subscribed: [String] { lock.withLock { subscriptions } }
    /// Published and not yet acknowledged, oldest first.
    public var pending: [MQTTMessageID] { lock.withLock { unacknowledged } }
    public var isConnected: Bool { lock.withLock { connected } }

    public func connect() {
        let generation: Int = lock.withLock {
            connected = true
            self.generation += 1
            return self.generation
        }
        post.yield(.connected(generation: generation))
    }

    public func drop() {
        lock.withLock {
            connected = false
            unacknowledged = []
        }
        post.yield(.disconnected(.lost(place: "\(options.host):\(options.port)")))
    }

    public func fail(_ problem: MQTTProblem) { post.yield(.failed(problem)) }

    public func acknowledge(_ ids: [MQTTMessageID]) {
        lock.withLock { unacknowledged.removeAll { ids.contains($0) } }
        for id in ids { post.yield(.acknowledged(id)) }
    }

    /// Acknowledges everything published and not yet acknowledged.
    public func acknowledgeAll() { acknowledge(pending) }

    /// A message to the client; `retained`: as the broker hands its stored copy at a
    /// subscription.
    public func deliver(_ topic: String, _ payload: String, retained: Bool = false) {
        post.yield(.message(topic: topic, payload: payload, retained: retained))
    }

    public func publish(_ topic: String, _ payload: String, retain: Bool) throws(MQTTError) -> MQTTMessageID {
        let (id, auto): (MQTTMessageID?, Bool) = lock.withLock {
            guard connected else { return (nil, false) }
            nextID += 1
            log.append(Published(id: nextID, topic: topic, payload: payload, retain: retain))
            if !self.auto { unacknowledged.append(nextID) }
            return (nextID, self.auto)
        }
        guard let id else { throw .publish(topic: topic, reason: "The client is not currently connected.") }
        if auto { post.yield(.acknowledged(id)) }
        return id
    }

    public func subscribe(_ topic: String) throws(MQTTError) {
        lock.withLock { subscriptions.append(topic) }
    }

    public func pause() {
        lock.withLock {
            paused = true
            connected = false
        }
        post.yield(.disconnected(nil))
    }

    public func resume() { lock.withLock { paused = false } }

    public func run(_ context: ServiceContext) async throws(ServiceFailure) {
        await context.stopRequested()
        if let farewell = options.farewell, isConnected {
            _ = try? publish(farewell.topic, farewell.payload, retain: farewell.retain)
        }
        lock.withLock { connected = false }
        post.yield(.disconnected(nil))
        post.finish()
    }
}
