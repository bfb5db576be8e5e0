import FleetWire
import Foundation
import MQTT
import Platform

/// What the collector decides, as a pure state machine (swift-nio style): the driver
/// (``Collector``) reports what happened — the database connected or failed, the broker
/// connected, a message arrived, a batch was stored, time passed — and performs the
/// actions each event returns. Every time comes in with its event, so the rules are tested
/// on a manual clock without a database or a broker.
///
/// Contract (the collector's, docs/collector.md):
/// - Rows wait in a batch; it closes when it holds `batch` rows or `window` after its
///   first row, and is stored only while the database is up. While the database is down
///   nothing is acknowledged; once `bufferLimit` rows wait the broker is left (it queues
///   for the persistent session) until the database is back and the rows are stored. A
///   member of a share group leaves at its first message while the database is down (the
///   other members take the rows).
/// - The database is retried after ``Backoff``'s pause (1 s doubling to 30 s).
/// - A device's acknowledgement is published after a commit that moved it, at most once a
///   second per device; on every (re)connection every known device's is published again.
/// - A malformed, hostile or foreign message is refused, counted and said at most once a
///   minute per device; gaps are asked for as ``StoreLedger`` decides.
public struct CollectorMachine: Sendable {
    /// What the driver does.
    public enum Action: Sendable {
        case connectDatabase
        /// Store these rows, device updates and acknowledged ids in one transaction.
        case store(Batch)
        case subscribe([String])
        case publish(topic: String, payload: String, retain: Bool)
        case pauseBroker
        case resumeBroker
        case say(ServiceNotice)
        /// Be woken after this pause (the batch's window, a retry, a paced acknowledgement).
        case wake(after: Duration)
        /// The collector cannot run: a configuration or the system, retrying cannot help.
        case fail(ServiceFailure)
    }

    /// What one transaction stores.
    public struct Batch: Sendable {
        /// The rows, newest revision of each key.
        public var rows: [DeviceRow]
        /// What is known of each device from this batch.
        public var devices: [String: RowStore.DeviceUpdate]
        /// Each stream's `through`, kept so that a restart starts there.
        public var throughs: [StoreLedger.StreamKey: Int64]
        /// In a `[collect] share` group, the devices the rows are of (nil: not in a group).
        public var share: [String]? = nil
        /// In a group: after the rows, take the acknowledgement leases and read back what
        /// the database holds (``ShareGroup``): at most once a second, not after every batch.
        public var round = false
    }

    private enum Database: Sendable {
        case connecting
        case up
        /// A store is in progress: what it holds.
        case storing(Batch)
        case down(retryAt: ContinuousClock.Instant, reason: String)
    }

    private enum Broker: Sendable {
        case connecting
        case connected(generation: Int)
        /// Left while the database is down: once `bufferLimit` rows wait (a share group's member at once).
        case paused
    }

    /// `[collect]`.
    public let settings: CollectSettings
    /// How long a batch waits after its first row.
    public let window: Duration
    /// Rows held at most while the database is down.
    public var bufferLimit: Int { settings.batch * 4 }
    private var database = Database.connecting
    private var broker = Broker.connecting
    private var backoff = Backoff(first: .seconds(1), cap: .seconds(30))
    var ledger = StoreLedger()
    private var loaded = false
    var prefixes: [String: String] = [:]
    /// Each device's logbook incarnation, as its hello says (a row only until one did): the one its
    /// retained acknowledgement speaks of (an older incarnation's rows are still stored).
    private var incarnations: [String: String] = [:]
    private var rows: [DeviceRow] = []
    private var openedAt: ContinuousClock.Instant?
    var updates: [String: RowStore.DeviceUpdate] = [:]
    /// Devices whose acknowledgement moved and is not published yet, and when each was
    /// last published: at most one a second per device, however many batches touched it.
    var pendingAcks = Set<String>()
    private var lastAck: [String: ContinuousClock.Instant] = [:]
    private var lastRefusalNote: [String: ContinuousClock.Instant] = [:]
    private var brokerProblem: String?
    /// In a `[collect] share` group: the devices this member acknowledges, and when its last
    /// round with the database began (one a second, rows or not).
    var ownership = AckOwnership()
    var lastRound: ContinuousClock.Instant?
    var isShared: Bool { settings.share != nil }
    /// What it is doing, for the status file.
    public private(set) var state = CollectorState()

    /// A machine that has not started.
    public init(settings: CollectSettings, window: Duration = .seconds(1)) {
        self.settings = settings
        self.window = window
    }

    /// The devices known (for tests and the status).
    public var devices: [String] { ledger.devices }

    // MARK: events

    /// The collector starts.
    public mutating func started(at date: Date) -> [Action] {
        state.started = date
        return [.connectDatabase]
    }

    /// The database answered: `loaded` is what it says was stored (read once, at the first
    /// connection) and its topic prefixes.
    public mutating func databaseConnected(
        serverVersion: Int, loaded stored: StoreLedger?, prefixes known: [String: String],
        at now: ContinuousClock.Instant, date: Date
    ) -> [Action] {
        var actions: [Action] = []
        if let stored, !loaded {
            ledger = stored
            prefixes.merge(known) { current, _ in current }
            loaded = true
        }
        if state.database != "connected" {
            actions.append(.say(.info("connected to PostgreSQL (server \(serverVersion))", from: "collect")))
        }
        state.database = "connected"
        state.databaseError = nil
        backoff.succeeded()
        database = .up
        if case .paused = broker {
            // Back with the rows that waited: store them, then come back to the broker.
            actions += closeBatch(at: now, date: date, force: true)
        }
        if case .connected = broker { actions += acknowledgeAll(at: now, date: date) }
        return actions + due(at: now, date: date)
    }

    /// The database could not be reached or prepared.
    public mutating func databaseFailed(_ error: DatabaseError, at now: ContinuousClock.Instant) -> [Action] {
        // At the start, settings that cannot work stop it (78: the unit does not restart it
        // in a loop, nor stay "active" storing nothing); later in a run they are retried,
        // since a password changed under a running collector may be changed back.
        if error.isConfiguration, !loaded || Self.isNewer(error) {
            return [
                .fail(
                    ServiceFailure(
                        service: "collect", kind: .configuration,
                        message: Self.isNewer(error)
                            ? error.description
                            : "\(error.description): check [collect] database, password-file and the role's privileges "
                                + "(it must own the database or may create tables in it)",
                        remedy: .check("[collect] database and password-file")))
            ]
        }
        if case .library = error {
            return [.fail(ServiceFailure(service: "collect", kind: .unavailable, message: error.description))]
        }
        var actions: [Action] = []
        let reason = error.description
        if reason != state.databaseError {
            actions.append(.say(.warning("\(reason); retrying (rows are not acknowledged meanwhile)", from: "collect")))
        }
        let pause = backoff.failed()
        state.database = "down"
        state.databaseError = reason
        database = .down(retryAt: now + pause, reason: reason)
        return actions + [.wake(after: pause)]
    }

    private static func isNewer(_ error: DatabaseError) -> Bool {
        if case .newerSchema = error { return true }
        return false
    }

    /// The broker accepted the connection.
    public mutating func brokerConnected(generation: Int, at now: ContinuousClock.Instant, date: Date) -> [Action] {
        broker = .connected(generation: generation)
        state.broker = "connected"
        // In a share group the broker hands each row to one member; every member hears every
        // hello and status.
        let history = settings.share.map { "$share/\($0)/" } ?? ""
        var actions: [Action] = [
            .subscribe(
                ["\(history)\(settings.topicPrefix)/history"]
                    + ["status", "hello"].map { "\(settings.topicPrefix)/\($0)" }),
            .say(.info("subscribed to \(history)\(settings.topicPrefix)/history", from: "collect")),
        ]
        // Trouble is said once when it begins and once when it ends, as the logger says it.
        if brokerProblem != nil {
            brokerProblem = nil
            actions.append(.say(.info("the broker answers again", from: "collect")))
        }
        if isUp { actions += acknowledgeAll(at: now, date: date) }
        return actions
    }

    /// The broker is away (`problem` nil: this collector left it).
    public mutating func brokerDown(_ problem: MQTTProblem?, at now: ContinuousClock.Instant) -> [Action] {
        if case .paused = broker { return [] }
        broker = .connecting
        guard let problem else { return [] }
        if problem.isPermanent {
            return [
                .fail(
                    ServiceFailure(
                        service: "collect", kind: .configuration, message: problem.message(section: "[collect]"),
                        remedy: .check("[collect] username and broker-password-file")))
            ]
        }
        let message = problem.message(section: "[collect]")
        state.broker = "connecting: \(message)"
        guard message != brokerProblem else { return [] }
        brokerProblem = message
        return [.say(.warning("\(message); retrying", from: "collect"))]
    }

    /// A message on a subscribed topic.
    public mutating func received(
        topic: String, payload: String, at now: ContinuousClock.Instant, date: Date
    ) -> [Action] {
        guard let (device, rest) = settings.device(inTopic: topic) else { return [] }
        let prefix = String(topic.dropLast(rest.count + 1))
        prefixes[device] = prefix
        var update = updates[device] ?? RowStore.DeviceUpdate(prefix: prefix, seen: date)
        update.seen = date
        var actions: [Action] = []
        switch rest {
        case "history":
            do {
                let row = try DeviceRow(device: device, payload: payload, now: date)
                rows.append(row)
                // The hello names the current incarnation; a row only until one did (a row of
                // an older logbook still queued at the broker must not turn the acks back to it).
                if incarnations[device] == nil {
                    incarnations[device] = row.incarnation
                    update.incarnation = row.incarnation
                }
                update.lag = Int64(max(0, date.timeIntervalSince(row.time)) * 1000)
            } catch {
                return refuse(device: device, error.description, label: error.label, at: now)
            }
        case "status":
            let status = String(payload.prefix(40))
            update.status = status.isEmpty ? nil : status
        case "hello":
            guard let hello = CollectorMessages.Hello(json: payload), hello.device == device else {
                return refuse(device: device, "a hello that is not this device's", label: "foreign_hello", at: now)
            }
            update.software = hello.software
            incarnations[device] = hello.incarnation
            update.incarnation = hello.incarnation
            let owner = StreamOwner.name(device: device, incarnation: hello.incarnation)
            if isShared {
                ownership.wait(hello, device: device, owner: owner)
            } else {
                actions += check(hello, device: device, owner: owner, update: &update, date: date)
            }
        default: return []
        }
        updates[device] = update
        // A device's news (a row, its status, its hello) waits at most a window.
        if openedAt == nil {
            openedAt = now
            actions.append(.wake(after: window))
        }
        if rows.count >= settings.batch { actions += closeBatch(at: now, date: date, force: false) }
        // A member of a share group leaves at once: it keeps no session, so the broker hands
        // the rows to the members that can store them, instead of this one holding them.
        if isDown && (isShared || rows.count >= bufferLimit), case .connected = broker {
            broker = .paused
            state.broker = "paused: the database is down (\(count: rows.count, "row") held)"
            let rest = isShared ? "the group's other members take the rest" : "the broker queues the rest"
            actions += [
                .pauseBroker,
                .say(
                    .warning(
                        "pausing: the database is down (\(count: rows.count, "row") held); \(rest)", from: "collect")),
            ]
        }
        return actions
    }

    /// The batch was stored: `outcome` holds the rows the database refused for their data
    /// and, in a share group, its view of the devices this member acknowledges.
    public mutating func stored(
        _ batch: Batch, outcome: StoreOutcome = StoreOutcome(), took: Duration = .zero,
        at now: ContinuousClock.Instant, date: Date
    ) -> [Action] {
        database = .up
        let refused = outcome.refused
        let refusedIDs = Set(refused.map(\.0.key))
        let kept = batch.rows.filter { !refusedIDs.contains($0.key) }
        var actions: [Action] = []
        for (row, error) in refused {
            actions += refuse(device: row.device, "\(row.id): \(error)", label: "database", at: now)
        }
        if let view = outcome.view {
            // The database's word replaces this member's: the group stored what it did.
            actions += viewed(view, roundStarted: now - took, at: now, date: date)
        } else if !isShared {
            for ack in ledger.stored(kept, at: now) { pendingAcks.insert(ack.device) }
        }
        pendingAcks.formUnion(ledger.takeDue())
        state.stored += kept.count
        for row in kept {
            state.storedByKind[row.kind.rawValue, default: 0] += 1
            state.lagSeconds.observe(max(0, date.timeIntervalSince(row.time)))
        }
        state.batchSeconds.observe(max(0, Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18))
        if case .paused = broker, rows.count < bufferLimit {
            broker = .connecting
            state.broker = "connecting"
            actions.append(.resumeBroker)
        }
        // What arrived meanwhile may already be due.
        if rows.count >= settings.batch { actions += closeBatch(at: now, date: date, force: false) }
        return actions + due(at: now, date: date)
    }

    /// The store failed: the rows wait; a broken connection is made again later.
    public mutating func storeFailed(
        _ batch: Batch, error: DatabaseError, broken: Bool, at now: ContinuousClock.Instant
    ) -> [Action] {
        // The batch goes back in front of what arrived meanwhile. Its commit may have
        // happened all the same (a connection lost after it): its rows may be stored.
        rows =
            batch.rows.map { row in
                var row = row
                row.mayBeStored = true
                return row
            } + rows
        for (device, update) in batch.devices where updates[device] == nil { updates[device] = update }
        openedAt = openedAt ?? now
        state.databaseError = error.description
        var actions: [Action] = [
            .say(.warning("\(error); keeping \(batch.rows.count) rows to store when it is back", from: "collect"))
        ]
        if broken {
            let pause = backoff.failed()
            state.database = "down"
            database = .down(retryAt: now + pause, reason: error.description)
            actions.append(.wake(after: pause))
        } else {
            database = .up
            actions.append(.wake(after: window))
        }
        return actions
    }

    /// Time passed (a timer the machine asked for went off).
    public mutating func woke(at now: ContinuousClock.Instant, date: Date) -> [Action] {
        if case .down(let retryAt, _) = database {
            guard now >= retryAt else {
                // An earlier timer (the batch's window): the retry is still to come.
                return due(at: now, date: date) + [.wake(after: retryAt - now)]
            }
            database = .connecting
            return [.connectDatabase]
        }
        return due(at: now, date: date)
    }

    /// The stop: what is held is stored if the database is up; every pending
    /// acknowledgement goes out.
    public mutating func stopping(at now: ContinuousClock.Instant, date: Date) -> [Action] {
        state.broker = "stopped"
        guard isUp, !rows.isEmpty || !updates.isEmpty else { return flushAcks(at: now, date: date, force: !isShared) }
        return closeBatch(at: now, date: date, force: true)
    }

    /// The acknowledgements still owed after the last store of the stop (in a share group,
    /// only those a second after the device's last: the next lease holder says the rest).
    public mutating func finishing(at now: ContinuousClock.Instant, date: Date) -> [Action] {
        flushAcks(at: now, date: date, force: !isShared)
    }

    // MARK: the rules

    private var isUp: Bool {
        if case .up = database { return true }
        return false
    }

    private var isDown: Bool {
        if case .down = database { return true }
        return false
    }

    /// True until the database was read once for what it stored.
    public var needsLedger: Bool { !loaded }

    /// Whatever is due now: the batch's window, a share group's round, paced
    /// acknowledgements, replays.
    private mutating func due(at now: ContinuousClock.Instant, date: Date) -> [Action] {
        var actions: [Action] = []
        if let openedAt, now - openedAt >= window {
            actions += closeBatch(at: now, date: date, force: true)
        } else if let openedAt, isUp {
            // Woken early (by another deadline): the window is still to come.
            actions.append(.wake(after: openedAt + window - now))
        }
        if isShared, isUp, case .connected = broker {
            if let next = nextRound(at: now) {
                actions.append(.wake(after: next))
            } else {
                actions += closeBatch(at: now, date: date, force: true)
            }
        }
        actions += flushAcks(at: now, date: date, force: false)
        if isUp, case .connected = broker {
            for request in ledger.due(at: now) {
                let (device, incarnation) = StreamOwner.split(request.device)
                // A member asks only for its own devices' gaps: another's stream is not whole here.
                guard let prefix = prefixes[device], !isShared || ownership.owns(device, at: now) else { continue }
                let message = CollectorMessages.Replay(
                    kind: request.kind, from: request.from, until: request.until, incarnation: incarnation)
                actions.append(.publish(topic: "\(prefix)/replay", payload: message.json, retain: false))
                state.replaysAsked += 1
            }
        }
        if isUp, case .connected = broker, let next = ledger.nextReplay(after: now), next > .zero {
            actions.append(.wake(after: next))
        }
        return actions
    }

    /// The batch as a store, when the database can take it.
    private mutating func closeBatch(at now: ContinuousClock.Instant, date: Date, force: Bool) -> [Action] {
        let roundDue = isShared && nextRound(at: now) == nil
        guard isUp, !rows.isEmpty || !updates.isEmpty || roundDue, force || rows.count >= settings.batch else {
            return []
        }
        var taken = Array(rows.prefix(settings.batch))
        let batch: Batch
        if isShared {
            batch = sharedBatch(&taken, at: now)
        } else {
            // The ledger was read from the database at start and has seen every commit
            // since: an id it holds no version of has none stored (a row of a failed store,
            // which may have committed all the same, stays `true`).
            for index in taken.indices where taken[index].mayBeStored == nil {
                taken[index].mayBeStored = ledger.mayHold(taken[index])
            }
            var preview = ledger
            _ = preview.stored(taken, at: now)
            batch = Batch(rows: taken, devices: updates, throughs: preview.throughs)
        }
        rows.removeFirst(taken.count)
        updates = [:]
        openedAt = rows.isEmpty ? nil : now
        database = .storing(batch)
        state.buffered = rows.count
        return [.store(batch)] + (rows.isEmpty ? [] : [.wake(after: window)])
    }

    /// Publishes the pending acknowledgements a second or more after each device's last.
    private mutating func flushAcks(at now: ContinuousClock.Instant, date: Date, force: Bool) -> [Action] {
        guard !pendingAcks.isEmpty, case .connected = broker else { return [] }
        var actions: [Action] = []
        var soonest: Duration?
        for device in pendingAcks.sorted() {
            if !force, let last = lastAck[device], now - last < .seconds(1) {
                let left = .seconds(1) - (now - last)
                soonest = min(soonest ?? left, left)
                continue
            }
            pendingAcks.remove(device)
            lastAck[device] = now
            if let ack = acknowledgement(device, at: now, date: date) { actions.append(ack) }
        }
        if let soonest { actions.append(.wake(after: soonest)) }
        return actions
    }

    /// On a (re)connection, every known device hears again what is stored.
    private mutating func acknowledgeAll(at now: ContinuousClock.Instant, date: Date) -> [Action] {
        ledger.devices.compactMap { device in
            guard !isShared || ownership.owns(StreamOwner.split(device).device, at: now) else { return nil }
            lastAck[device] = now
            pendingAcks.remove(device)
            return acknowledgement(device, at: now, date: date)
        }
    }

    private mutating func acknowledgement(_ owner: String, at now: ContinuousClock.Instant, date: Date) -> Action? {
        let (device, incarnation) = StreamOwner.split(owner)
        guard let prefix = prefixes[device] else { return nil }
        // In a share group only the device's one owner says it: two members' words could
        // reach the broker in either order.
        if isShared && !ownership.owns(device, at: now) { return nil }
        // The retained acknowledgement is the current incarnation's: an older one's would
        // replace it, and the device ignores it anyway.
        if let current = incarnations[device], current != incarnation { return nil }
        let ack = ledger.acknowledgement(for: owner)
        ownership.told(ack)
        state.acksPublished += 1
        let message = CollectorMessages.Ack(
            through: ack.through, revised: ack.revised, time: date, incarnation: incarnation)
        return .publish(topic: "\(prefix)/ack", payload: message.json, retain: true)
    }

    private mutating func refuse(device: String, _ reason: String, label: String, at now: ContinuousClock.Instant)
        -> [Action]
    {
        state.refused += 1
        state.refusedByReason[label, default: 0] += 1
        if let last = lastRefusalNote[device], now - last < .seconds(60) { return [] }
        lastRefusalNote[device] = now
        return [
            .say(
                .warning(
                    "refused a message from \(device): \(reason) (\(state.refused) refused so far)", from: "collect"))
        ]
    }

    /// The status a running collector writes, as of now.
    public func status(at date: Date) -> CollectorState {
        var state = self.state
        state.buffered = rows.count
        state.devices = ledger.deviceCount
        state.written = date
        return state
    }
}
