import Foundation
import Logbook
import MQTT
import Platform

/// What a running ``FleetPublisher`` decides, as a pure state machine in swift-nio's
/// manner (as ``CollectorMachine`` is the collector's): one mutating func per event, each
/// returning the actions the driver (``PublisherDriver``) performs with the connection and
/// the logbook. Every time is given by the caller, so the rules are tested without a broker.
///
/// Contract:
/// - Rows go out only while connected, at most `inFlightLimit` unacknowledged; a row is
///   marked sent only on the broker's acknowledgement of the revision it carries (an older
///   revision's acknowledgement settles nothing). A new connection publishes again what
///   was in flight.
/// - A connection trouble is said once until it changes or the connection is back, and
///   a new connection once; of these, four lines a minute at most (``LinePace``: a broker
///   that drops the device at every connection is said, not twice a second). Refused
///   credentials fail the service.
/// - The probe of a run: published at the first connection, settled when it comes back;
///   not back within `probePatience`, said once.
/// - The stop drains: it ends when disconnected, or when nothing is unsent, in flight or
///   (with the collector) awaited; or after `patience` without an acknowledgement.
struct PublisherMachine: Sendable {
    /// A row in flight: its outbox key and the revision the message carries.
    struct Carried: Sendable, Equatable {
        let key: String
        let revision: Int64
    }

    /// What the driver does.
    enum Action: Sendable, Equatable {
        /// A new connection: say `online`, publish the discovery configs and these retained
        /// messages again, greet the collector; publish the probe `probe` when given.
        case greet(retained: [LiveTopics.Message], probe: String?)
        /// Publish up to `room` unsent rows, leaving out the revisions in `excluding`
        /// (row key → the revision in flight).
        case fill(room: Int, excluding: [String: Int64])
        /// The broker has this row: mark it sent.
        case markSent(Carried)
        /// A row changed what Home Assistant shows now: publish it retained.
        case publishRetained(LiveTopics.Message)
        /// Home Assistant came back: publish the discovery configs again.
        case publishDiscovery
        /// Say this.
        case say(ServiceNotice)
        /// Wake with this input after this long.
        case wake(after: Duration, FleetPublisher.Input)
        /// The broker refused for good: end the service with this failure.
        case fail(ServiceFailure)
        /// The drain is over: end the service.
        case finish
    }

    /// Whether the stop may end now; the driver reads the logbook only for `whenEmpty`.
    enum Drain: Sendable, Equatable {
        /// Not stopping.
        case running
        /// Stopping and disconnected: what is unsent waits in the logbook.
        case over
        /// Stopping: over once nothing is unsent (and, when `awaitingCollector`, nothing
        /// unstored).
        case whenEmpty(awaitingCollector: Bool)
    }

    private enum Connection: Sendable {
        /// Down; `reported` is the trouble last said.
        case down(reported: String?)
        case up
    }

    private enum Stopping: Sendable {
        case no
        case draining(awaitingCollector: Bool)
    }

    private enum Probe: Sendable {
        case unsent
        case pending(payload: String, sent: ContinuousClock.Instant)
        case settled
    }

    /// The device's topics' prefix.
    let prefix: String
    /// At most this many rows unacknowledged (the connection's `inFlight`).
    let inFlightLimit: Int
    /// Home Assistant's status topic, with discovery on.
    let discoveryStatusTopic: String?
    /// The drain's wait for an acknowledgement, the collector's, and the probe's.
    let patience: (broker: Duration, collector: Duration?, probe: Duration)

    private var connection = Connection.down(reported: nil)
    private var stopping = Stopping.no
    private var probe = Probe.unsent
    /// Message id → the row and revision it carries.
    private var inFlight: [MQTTMessageID: Carried] = [:]
    /// What Home Assistant shows now.
    private(set) var live: LiveTopics
    /// Rows the broker acknowledged during this run.
    private(set) var acknowledged = 0
    /// When Home Assistant's "online" last had the discovery configs published.
    private var discoverySent: ContinuousClock.Instant?
    /// The connection's lines (lost, back).
    private var connectionLines = LinePace(limit: 4)

    init(
        prefix: String, inFlightLimit: Int, discoveryStatusTopic: String?, live: LiveTopics,
        patience: (broker: Duration, collector: Duration?, probe: Duration)
    ) {
        self.prefix = prefix
        self.inFlightLimit = inFlightLimit
        self.discoveryStatusTopic = discoveryStatusTopic
        self.live = live
        self.patience = patience
    }

    /// Where the probe goes and comes back.
    var probeTopic: String { "\(prefix)/probe" }

    /// The broker took the connection; `probePayload` is this run's probe if none was sent.
    mutating func connected(probePayload: String, at now: ContinuousClock.Instant) -> [Action] {
        connection = .up
        // Whatever was in flight may be lost with the old connection: publish it again.
        inFlight.removeAll()
        let probe: String?
        if case .unsent = self.probe { probe = probePayload } else { probe = nil }
        let pace = connectionLines.admit(at: now)
        let line = LinePace.line("connected to the broker; publishing to \(prefix)", leftOut: pace.leftOut)
        return [.greet(retained: live.retained, probe: probe)] + (pace.say ? [.say(.info(line, from: .mqtt))] : [])
            + fill()
    }

    /// The probe was published at `now`.
    mutating func probeSent(_ payload: String, at now: ContinuousClock.Instant) {
        probe = .pending(payload: payload, sent: now)
    }

    /// The connection ended (`problem` nil: closed by this client).
    mutating func disconnected(_ problem: MQTTProblem?, at now: ContinuousClock.Instant) -> [Action] {
        guard let problem else {
            if case .up = connection { connection = .down(reported: nil) }
            return []
        }
        return report(problem, at: now)
    }

    /// A connection could not be made.
    mutating func failed(_ problem: MQTTProblem, at now: ContinuousClock.Instant) -> [Action] {
        if problem.isPermanent {
            connection = .down(reported: nil)
            return [
                .fail(
                    ServiceFailure(
                        service: .mqtt, kind: .configuration, message: problem.message(section: "[mqtt]"),
                        remedy: .check("[mqtt] username and password-file")))
            ]
        }
        return report(problem, at: now)
    }

    /// A trouble of the connection, said once until it changes or the connection is back.
    private mutating func report(_ problem: MQTTProblem, at now: ContinuousClock.Instant) -> [Action] {
        let message = problem.message(section: "[mqtt]")
        if case .down(message) = connection { return [] }
        connection = .down(reported: message)
        let pace = connectionLines.admit(at: now)
        guard pace.say else { return [] }
        let line = LinePace.line("\(message); retrying (the rows wait in the logbook)", leftOut: pace.leftOut)
        return [.say(.warning(line, from: .mqtt))]
    }

    /// The broker acknowledged the message `mid`.
    mutating func acknowledged(_ mid: MQTTMessageID) -> [Action] {
        guard let carried = inFlight.removeValue(forKey: mid) else { return fill() }
        acknowledged += 1
        return [.markSent(carried)] + fill()
    }

    /// A message on a subscribed topic that is not the collector's, at `now`.
    mutating func received(topic: String, payload: String, at now: ContinuousClock.Instant) -> [Action] {
        if topic == probeTopic {
            if case .pending(payload, _) = probe { probe = .settled }
            return []
        }
        guard topic == discoveryStatusTopic, payload == Self.homeAssistantBirth else { return [] }
        // Home Assistant's "online" asks every device for its configs; anyone who may write
        // that topic can say it a hundred times a second. Once a minute is enough: the
        // configs are retained, so a Home Assistant that starts in between finds them.
        if let last = discoverySent, now - last < Self.discoveryEvery { return [] }
        discoverySent = now
        return [.publishDiscovery]
    }

    /// What Home Assistant says on its status topic when it starts (its birth message).
    static let homeAssistantBirth = "online"

    /// How often Home Assistant's "online" has the discovery configs published again at most.
    static let discoveryEvery: Duration = .seconds(60)

    /// New rows may wait in the outbox (written, or made unsent again).
    mutating func rowsChanged() -> [Action] { fill() }

    /// The driver published `carried` as `mid`, the row `row`, at `now`.
    mutating func published(_ carried: Carried, as mid: MQTTMessageID, row: Logbook.OutboxRow, now: Date) -> [Action] {
        // An older revision still in flight: its acknowledgement settles nothing.
        inFlight = inFlight.filter { $0.value.key != carried.key }
        inFlight[mid] = carried
        return live.published(row, now: now).map { [.publishRetained($0)] } ?? []
    }

    /// The stop: drain, waiting `patience` at a time while the broker acknowledges.
    mutating func stop() -> [Action] {
        stopping = .draining(awaitingCollector: patience.collector != nil)
        var actions: [Action] = [.wake(after: patience.broker, .patienceOver(progress: acknowledged))]
        if let collector = patience.collector { actions.append(.wake(after: collector, .collectorPatienceOver)) }
        return actions
    }

    /// The collector is slow or away: what it has not acknowledged waits in the logbook.
    mutating func collectorPatienceOver() {
        if case .draining = stopping { stopping = .draining(awaitingCollector: false) }
    }

    /// `patience` passed since the drain saw `progress` acknowledgements.
    mutating func patienceOver(progress: Int) -> [Action] {
        // No acknowledgement for `patience`: the rest waits in the logbook.
        progress == acknowledged ? [.finish] : [.wake(after: patience.broker, .patienceOver(progress: acknowledged))]
    }

    /// After every event: the probe not back within its patience is said once.
    mutating func looked(at now: ContinuousClock.Instant) -> [Action] {
        guard case .pending(_, let sent) = probe, now - sent >= patience.probe else { return [] }
        probe = .settled
        return [
            .say(
                .warning(
                    "the broker took the connection but dropped a probe published on \(probeTopic) (it acknowledges "
                        + "what its ACL drops): it likely drops every row this device publishes; check the broker's "
                        + "ACL: [mqtt] username and device-id must name the same device (docs/scaling.md, "
                        + "`airloc doctor`)", from: .mqtt))
        ]
    }

    /// Whether the stop may end now.
    var drain: Drain {
        guard case .draining(let awaitingCollector) = stopping else { return .running }
        guard case .up = connection else { return .over }
        return inFlight.isEmpty ? .whenEmpty(awaitingCollector: awaitingCollector) : .running
    }

    private func fill() -> [Action] {
        guard case .up = connection, inFlightLimit > inFlight.count else { return [] }
        // Row key → the revision in flight (the newest, when an older one is unacknowledged).
        let excluding = Dictionary(inFlight.values.map { ($0.key, $0.revision) }, uniquingKeysWith: max)
        return [.fill(room: inFlightLimit - inFlight.count, excluding: excluding)]
    }
}
