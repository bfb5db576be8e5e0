import FleetWire
import Foundation
import Logbook
import MQTT
import Platform
import Settings

/// What runs a ``FleetPublisher``: it feeds each input to the pure ``PublisherMachine``
/// and performs the actions it returns with the connection, the logbook and the
/// collector's link (``CollectorLink``, which keeps the logbook's marks of what the
/// collector stored). No decision is made here that the machine could make.
struct PublisherDriver {
    let publisher: FleetPublisher
    let context: ServiceContext
    let inbox: Mailbox<FleetPublisher.Input>
    private var machine: PublisherMachine
    private var collector: CollectorLink?
    private var collectorTimer: Mailbox<FleetPublisher.Input>.Timer?
    /// When a message the device cannot read was last said.
    private var refusalSaid: ContinuousClock.Instant?
    private var client: any MQTTClient { publisher.client }
    private var logbook: Logbook { publisher.logbook }
    private var settings: Settings { publisher.settings }

    init(publisher: FleetPublisher, context: ServiceContext, inbox: Mailbox<FleetPublisher.Input>) {
        self.publisher = publisher
        self.context = context
        self.inbox = inbox
        collector = publisher.collector
        let settings = publisher.settings
        let live = LiveTopics(
            prefix: publisher.prefix, position: settings.mqtt.position, grid: settings.outboundPrecision,
            intervals: (
                settings.sensor.interval,
                Dictionary(
                    settings.climateSensors.map { ($0.name, $0.interval) }, uniquingKeysWith: { first, _ in first })
            ))
        machine = PublisherMachine(
            prefix: publisher.prefix, inFlightLimit: publisher.client.options.inFlight,
            discoveryStatusTopic: settings.mqtt.discovery ? "\(settings.mqtt.discoveryPrefix)/status" : nil, live: live,
            patience: (
                publisher.patience, publisher.collector == nil ? nil : publisher.collectorPatience,
                publisher.probePatience
            ))
    }

    enum Next { case goOn, done }

    /// One input, and everything it leads to.
    mutating func handle(_ input: FleetPublisher.Input) throws(ServiceFailure) -> Next {
        let actions: [PublisherMachine.Action]
        switch input {
        case .mqtt(.connected):
            actions = machine.connected(probePayload: "airloc probe \(UUID().uuidString)", at: context.time.now)
        case .mqtt(.disconnected(let problem)): actions = machine.disconnected(problem, at: context.time.now)
        case .mqtt(.failed(let problem)): actions = machine.failed(problem, at: context.time.now)
        case .mqtt(.acknowledged(let mid)): actions = machine.acknowledged(mid)
        case .mqtt(.message(let topic, let payload, _)):
            if var link = collector, link.received((topic, payload), client: client, at: context.time.now, notify: say)
            {
                collector = link
                actions = machine.rowsChanged()
            } else {
                actions = machine.received(topic: topic, payload: payload, at: context.time.now)
            }
        case .mqtt(.unreadable(let topic, let problem)):
            // Nothing the device subscribes to is that large or not text: none of its own.
            // Said once a minute at most, whoever keeps sending it.
            let now = context.time.now
            if refusalSaid.map({ now - $0 >= .seconds(60) }) ?? true {
                refusalSaid = now
                say(.warning("ignored \(problem.description) on \(topic)", from: .mqtt))
            }
            actions = []
        case .rowsChanged: actions = machine.rowsChanged()
        case .collectorDue:
            collectorTimer = nil
            var republished = false
            if var link = collector {
                republished = link.tick(client, at: context.time.now, notify: say)
                collector = link
            }
            actions = republished ? machine.rowsChanged() : []
        case .stop: actions = machine.stop()
        case .collectorPatienceOver:
            machine.collectorPatienceOver()
            actions = []
        case .patienceOver(let progress): actions = machine.patienceOver(progress: progress)
        }
        if try perform(actions + machine.looked(at: context.time.now)) == .done { return .done }
        scheduleCollector()
        return drained ? .done : .goOn
    }

    private func say(_ notice: ServiceNotice) { context.notify(notice) }

    /// Performs the machine's actions, and those they lead to.
    private mutating func perform(_ actions: [PublisherMachine.Action]) throws(ServiceFailure) -> Next {
        for action in actions {
            switch action {
            case .greet(let retained, let probe): greet(retained: retained, probe: probe)
            case .fill(let room, let excluding): fill(room: room, excluding: excluding)
            case .markSent(let carried):
                do { try logbook.markSent([(carried.key, carried.revision)]) } catch {
                    say(.error("cannot mark rows sent: \(error)", from: .mqtt))
                }
            case .publishRetained(let message): _ = try? client.publish(message.topic, message.payload, retain: true)
            case .publishDiscovery: publishDiscovery()
            case .say(let notice): say(notice)
            case .wake(let after, let input): inbox.wake(after: after, on: context.time, with: input)
            case .fail(let failure): throw failure
            case .finish: return .done
            }
        }
        return .goOn
    }

    /// Whether the drain at the stop is over: the machine says when, the logbook what is left.
    private var drained: Bool {
        switch machine.drain {
        case .running: return false
        case .over: return true
        case .whenEmpty(let awaitingCollector):
            guard (try? logbook.unsentCount()) == 0 else { return false }
            // With the collector's acknowledgement, the stop waits for it to store what was sent.
            return !awaitingCollector || ((try? logbook.unstoredCount()) ?? 0) == 0
        }
    }

    /// The collector's next deadline as a timer (one at a time).
    private mutating func scheduleCollector() {
        guard collectorTimer == nil, let due = collector?.nextCheck(at: context.time.now) else { return }
        collectorTimer = inbox.wake(after: due, on: context.time, with: .collectorDue)
    }

    private mutating func greet(retained: [LiveTopics.Message], probe: String?) {
        _ = try? client.publish("\(publisher.prefix)/status", DeviceStatus.online.word, retain: true)
        if settings.mqtt.discovery {
            publishDiscovery()
            try? client.subscribe("\(settings.mqtt.discoveryPrefix)/status")
        }
        // A broker that lost its retained messages (restarted without persistence) would
        // leave Home Assistant blank until the next reading.
        for message in retained { _ = try? client.publish(message.topic, message.payload, retain: true) }
        // Once a run: a probe on the device's own subtree must come back (mosquitto
        // acknowledges a publish its ACL drops, so the rows' PUBACKs prove nothing).
        if let probe {
            try? client.subscribe(machine.probeTopic)
            if (try? client.publish(machine.probeTopic, probe, retain: false)) != nil {
                machine.probeSent(probe, at: context.time.now)
            }
        }
        if var link = collector {
            link.greet(client, at: context.time.now, notify: say)
            collector = link
        }
    }

    private func publishDiscovery() {
        guard settings.mqtt.discovery else { return }
        for message in publisher.discovery.messages {
            _ = try? client.publish(message.topic, message.payload, retain: true)
        }
    }

    /// Publishes up to `room` unsent rows; rows `[mqtt] position = none` withholds are done with.
    private mutating func fill(room: Int, excluding: [String: Int64]) {
        let entries: [Logbook.OutboxEntry]
        do { entries = try logbook.unsent(excluding: excluding, limit: room) } catch {
            say(.error("cannot read the outbox: \(error)", from: .mqtt))
            return
        }
        var skipped: [(key: String, revision: Int64)] = []
        let now = context.time.date
        for entry in entries {
            guard var line = publisher.outbound(entry.row) else {
                skipped.append((entry.key, entry.revision))
                continue
            }
            if let collector { line = collector.decorated(line, revision: entry.revision) }
            let mid: MQTTMessageID
            do { mid = try client.publish("\(publisher.prefix)/history", line) } catch {
                say(.warning("\(error)", from: .mqtt))
                break
            }
            if collector != nil { collector!.published(at: context.time.now) }
            let carried = PublisherMachine.Carried(key: entry.key, revision: entry.revision)
            // Only retained publishes follow: nothing that could end the service.
            _ = try? perform(machine.published(carried, as: mid, row: entry.row, now: now))
        }
        try? logbook.markSent(skipped, withheld: true)
    }
}
