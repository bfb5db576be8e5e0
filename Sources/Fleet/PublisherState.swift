import AirQuality
import FleetWire
import Foundation
import Geo
import Logbook
import MQTT
import Platform
import Settings

/// What a running ``FleetPublisher`` holds between two inputs: the rows in flight, what
/// is retained at the broker, the connection's generation, the drain at the stop.
struct PublisherState {
    let publisher: FleetPublisher
    let context: ServiceContext
    let inbox: Mailbox<FleetPublisher.Input>
    var client: any MQTTClient { publisher.client }
    var logbook: Logbook { publisher.logbook }
    var settings: Settings { publisher.settings }
    var prefix: String { publisher.prefix }

    /// Message id → the row and revision it carries.
    private var inFlight: [MQTTMessageID: (key: String, revision: Int64)] = [:]
    /// The retained state and position last published, and the hour of that state.
    private var retained: (state: String?, position: String?, stateHour: Date?) = (nil, nil, nil)
    /// The retained measured values last published, by topic (`<prefix>/measured`,
    /// `<prefix>/measured/NAME`).
    private var retainedMeasured: [String: String] = [:]
    private var connected = false
    private var reportedError: String?
    /// Rows the broker acknowledged during this run.
    private(set) var acknowledged = 0
    private var collector: CollectorLink?
    private var collectorTimer: Mailbox<FleetPublisher.Input>.Timer?
    private var draining = false
    /// At the stop, with the collector's acknowledgement: its last ack is still awaited.
    private var awaitingCollector = false
    /// The probe of this run: published at the first connection, then settled once it came
    /// back or was said to be dropped.
    private var probe = Probe.unsent

    private enum Probe {
        case unsent
        case pending(payload: String, sent: ContinuousClock.Instant)
        case settled
    }

    init(publisher: FleetPublisher, context: ServiceContext, inbox: Mailbox<FleetPublisher.Input>) {
        self.publisher = publisher
        self.context = context
        self.inbox = inbox
        collector = publisher.collector
    }

    enum Next { case goOn, done }

    mutating func handle(_ input: FleetPublisher.Input) throws(ServiceFailure) -> Next {
        switch input {
        case .mqtt(.connected):
            connected = true
            reportedError = nil
            greet()
            // Whatever was in flight may be lost with the old connection: publish it again.
            inFlight.removeAll()
            fill()
        case .mqtt(.disconnected(let problem)):
            connected = false
            if let problem { report(problem) }
        case .mqtt(.failed(let problem)):
            connected = false
            if problem.isPermanent {
                throw ServiceFailure(
                    service: .mqtt, kind: .configuration, message: problem.message(section: "[mqtt]"),
                    remedy: .check("[mqtt] username and password-file"))
            }
            report(problem)
        case .mqtt(.acknowledged(let mid)):
            if let done = inFlight.removeValue(forKey: mid) {
                do {
                    try logbook.markSent([done])
                    acknowledged += 1
                } catch { say(.error("cannot mark rows sent: \(error)", from: .mqtt)) }
            }
            fill()
        case .mqtt(.message(let topic, let payload, _)) where topic == "\(prefix)/probe":
            if case .pending(payload, _) = probe { probe = .settled }
        case .mqtt(.message(let topic, let payload, _)):
            let now = context.time.now
            if var link = collector, link.received((topic, payload), client: client, at: now, notify: say) {
                collector = link
                fill()
            } else if topic == "\(settings.mqtt.discoveryPrefix)/status" && payload == "online" {
                publishDiscovery()
            }
        case .mqtt(.unreadable):
            // Nothing the device subscribes to is that large or not text: none of its own.
            break
        case .rowsChanged:
            fill()
        case .collectorDue:
            collectorTimer = nil
            if var link = collector {
                if link.tick(at: context.time.now, notify: say) { fill() }
                collector = link
            }
        case .stop:
            draining = true
            inbox.wake(after: publisher.patience, on: context.time, with: .patienceOver(progress: acknowledged))
            if collector != nil {
                awaitingCollector = true
                inbox.wake(after: publisher.collectorPatience, on: context.time, with: .collectorPatienceOver)
            }
        case .collectorPatienceOver:
            // The collector is slow or away: what it has not acknowledged waits in the logbook.
            awaitingCollector = false
        case .patienceOver(let progress):
            // No acknowledgement for `patience`: the rest waits in the logbook.
            if progress == acknowledged { return .done }
            inbox.wake(after: publisher.patience, on: context.time, with: .patienceOver(progress: acknowledged))
        }
        scheduleCollector()
        checkProbe()
        if draining && (!connected || (inFlight.isEmpty && (try? logbook.unsentCount()) == 0 && !awaitsStore)) {
            return .done
        }
        return .goOn
    }

    private func say(_ notice: ServiceNotice) { context.notify(notice) }

    /// The probe that has not come back within `probePatience`: said once.
    private mutating func checkProbe() {
        guard case .pending(_, let sent) = probe, context.time.now - sent >= publisher.probePatience else { return }
        probe = .settled
        say(
            .warning(
                "the broker took the connection but dropped a probe published on \(prefix)/probe (it acknowledges "
                    + "what its ACL drops): it likely drops every row this device publishes; check the broker's ACL: "
                    + "[mqtt] username and device-id must name the same device (docs/scaling.md, `airloc doctor`)",
                from: .mqtt))
    }

    /// The stop still waits for the collector to acknowledge rows it was sent.
    private var awaitsStore: Bool { awaitingCollector && ((try? logbook.unstoredCount()) ?? 0) > 0 }

    /// A trouble of the connection, said once until it changes or the connection is back.
    private mutating func report(_ problem: MQTTProblem) {
        let message = problem.message(section: "[mqtt]")
        guard message != reportedError else { return }
        reportedError = message
        say(.warning("\(message); retrying (the rows wait in the logbook)", from: .mqtt))
    }

    /// The collector's next deadline as a timer (one at a time).
    private mutating func scheduleCollector() {
        guard collectorTimer == nil, let due = collector?.nextCheck(at: context.time.now) else { return }
        collectorTimer = inbox.wake(after: due, on: context.time, with: .collectorDue)
    }

    private mutating func greet() {
        _ = try? client.publish("\(prefix)/status", "online", retain: true)
        if settings.mqtt.discovery {
            publishDiscovery()
            try? client.subscribe("\(settings.mqtt.discoveryPrefix)/status")
        }
        // A broker that lost its retained messages (restarted without persistence) would
        // leave Home Assistant blank until the next reading.
        if let state = retained.state { _ = try? client.publish("\(prefix)/state", state, retain: true) }
        for (topic, measured) in retainedMeasured.sorted(by: { $0.key < $1.key }) {
            _ = try? client.publish(topic, measured, retain: true)
        }
        if let position = retained.position { _ = try? client.publish("\(prefix)/position", position, retain: true) }
        // Once a run: a probe on the device's own subtree must come back (mosquitto
        // acknowledges a publish its ACL drops, so the rows' PUBACKs prove nothing).
        if case .unsent = probe {
            let payload = "airloc probe \(UUID().uuidString)"
            try? client.subscribe("\(prefix)/probe")
            if (try? client.publish("\(prefix)/probe", payload, retain: false)) != nil {
                probe = .pending(payload: payload, sent: context.time.now)
            }
        }
        if var link = collector {
            link.greet(client, at: context.time.now, notify: say)
            collector = link
        }
        say(.info("connected to the broker; publishing to \(prefix)", from: .mqtt))
    }

    private func publishDiscovery() {
        guard settings.mqtt.discovery else { return }
        for message in publisher.discovery.messages {
            _ = try? client.publish(message.topic, message.payload, retain: true)
        }
    }

    private mutating func fill() {
        guard connected else { return }
        let room = client.options.inFlight - inFlight.count
        guard room > 0 else { return }
        let entries: [Logbook.OutboxEntry]
        // Row key → the revision in flight (the newest, when an older one is still unacknowledged).
        let published = Dictionary(inFlight.values.map { ($0.key, $0.revision) }, uniquingKeysWith: max)
        do { entries = try logbook.unsent(excluding: published, limit: room) } catch {
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
            do {
                let mid = try client.publish("\(prefix)/history", line)
                if collector != nil { collector!.published(at: context.time.now) }
                // An older revision still in flight: its acknowledgement settles nothing.
                if published[entry.key] != nil { inFlight = inFlight.filter { $0.value.key != entry.key } }
                inFlight[mid] = (entry.key, entry.revision)
            } catch {
                say(.warning("\(error)", from: .mqtt))
                return
            }
            publishState(entry.row, now: now)
        }
        // Rows withheld by `[mqtt] position = none` are done with.
        try? logbook.markSent(skipped, withheld: true)
    }

    /// Live rows also update what Home Assistant shows now.
    private mutating func publishState(_ row: Logbook.OutboxRow, now: Date) {
        switch row {
        case .air(let record)
        where [.live, .cached].contains(record.source) && record.values.usAQI != nil
            && now.timeIntervalSince(record.hour) < 7200 && record.hour >= (retained.stateHour ?? record.hour):
            let payload = HomeAssistantDiscovery.json(FleetPublisher.state(record))
            retained.state = payload
            retained.stateHour = record.hour
            _ = try? client.publish("\(prefix)/state", payload, retain: true)
        case .track(let point) where settings.mqtt.position != .none && now.timeIntervalSince(point.time) < 120:
            let shown = settings.mqtt.position == .exact ? point : publisher.coarse(point)
            let attributes: [String: Any] = [
                "latitude": shown.coordinate.latitude, "longitude": shown.coordinate.longitude,
                "gps_accuracy": (shown.accuracy ?? 0).rounded(),
            ]
            let payload = HomeAssistantDiscovery.json(attributes)
            // A device standing still (or a coarse grid cell) says it once.
            guard payload != retained.position else { return }
            retained.position = payload
            _ = try? client.publish("\(prefix)/position", payload, retain: true)
        case .sensor(let reading) where now.timeIntervalSince(reading.time) < max(600, 2 * interval(of: reading)):
            let payload = HomeAssistantDiscovery.json(FleetPublisher.measured(reading))
            let topic = publisher.measuredTopic(reading)
            retainedMeasured[topic] = payload
            _ = try? client.publish(topic, payload, retain: true)
        default: break
        }
    }

    /// The reading interval of the sensor that made `reading`.
    private func interval(of reading: SensorRecord) -> Double {
        guard reading.particulate == nil else { return settings.sensor.interval }
        return settings.climateSensors.first { $0.name == reading.name }?.interval ?? settings.sensor.interval
    }
}
