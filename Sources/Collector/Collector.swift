import FleetWire
import Foundation
import MQTT
import Platform

/// `airloc collect`: every device's published rows, stored in PostgreSQL exactly once and
/// acknowledged end to end (docs/collector.md).
///
/// Contract:
/// - Subscribes with a persistent session, QoS 1, to `<topic-prefix>/history`, `/status`
///   and `/hello`. libmosquitto acknowledges each message on receipt, so the broker's
///   acknowledgement proves nothing: a row counts only when its transaction committed,
///   and only then is `<device prefix>/ack` published (retained).
/// - What to do is ``CollectorMachine``'s; this is its driver: it waits on the broker's
///   events, the machine's timers and the stop, and hands the database's work to its
///   ``CollectorStore`` (PostgreSQL: a thread of its own per command, libpq blocks).
/// - On the stop it stores what it holds if it can and publishes the acknowledgements
///   still owed; ``report`` then holds what it did.
public struct Collector: Service {
    /// Its name in the group.
    public let name = ServiceName.collector
    /// What it runs with.
    public let plan: CollectorPlan
    /// The broker connection (a service of the same group).
    public let client: any MQTTClient
    /// Where the rows are stored.
    public let store: any CollectorStore
    /// How long a batch waits after its first row.
    public var window: Duration = .seconds(1)
    /// What the collector did, once it has stopped.
    public let report = OnceCell<CollectorState>()
    /// What it is doing, as of its last event (``CollectorMetrics`` reads it).
    public let current = CurrentState()

    /// A collector on `client` into `store`.
    public init(plan: CollectorPlan, client: any MQTTClient, store: any CollectorStore) {
        self.plan = plan
        self.client = client
        self.store = store
    }

    /// A collector on a libmosquitto connection and PostgreSQL as `plan` says.
    public init(plan: CollectorPlan) throws(MQTTError) {
        self.init(plan: plan, client: try MQTT.client(plan.broker), store: PostgresStore(plan: plan))
    }

    enum Input: Sendable {
        case mqtt(MQTTEvent)
        case wake
        case writeStatus
        case stop
    }

    /// Collects until the stop (see the contract).
    public func run(_ context: ServiceContext) async throws(ServiceFailure) {
        MemoryRelease.limitArenas()
        let inbox = Mailbox<Input>()
        defer { inbox.close() }
        inbox.forward(client.events) { .mqtt($0) }
        context.whenStopping { inbox.send(.stop) }
        var driver = CollectorDriver(collector: self, context: context, inbox: inbox)
        defer { report.set(driver.machine.status(at: context.time.date)) }
        try await driver.begin()
        for await input in inbox.messages {
            if try await driver.handle(input) == .done { return }
        }
    }
}
