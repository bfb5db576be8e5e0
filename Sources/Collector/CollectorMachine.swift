import FleetStore
import FleetWire
import Foundation
import MQTT
import Platform
import Settings

/// What the collector decides, as a pure state machine (swift-nio style): the driver
/// (``Collector``) reports what happened — the database connected or failed, the broker
/// connected, a message arrived, a batch was stored, time passed — and performs the
/// actions each event returns. Every time comes in with its event, so the rules are tested
/// on a manual clock without a database or a broker.
///
/// Contract (the collector's, docs/collector.md):
/// - Rows wait in a batch; it closes when it holds `batch` rows or `window` after its
///   first row, and is stored only while the database is up. While rows cannot be stored
///   (the database unreachable, or refusing the batch for other than its data: a disk
///   full, a read-only server, a privilege taken away) nothing is acknowledged; once
///   `bufferLimit` rows wait the broker is left (it queues for the persistent session)
///   until a store succeeds. A member of a share group leaves at its first message while
///   rows cannot be stored (the other members take the rows).
/// - A failed connection or store is tried again after ``Backoff``'s pause (1 s doubling
///   to 60 s), reset only once rows are stored again; the fault is said when it begins,
///   when its kind changes and when it ends (``StoreFault``), never once per retry.
/// - Each message is judged alone (``IncomingMessage``) before anything of it is kept: a
///   refused one is counted by reason and said as ``RefusalNotes`` allows; it never
///   stops the rows of another device. A batch the database refuses for its data is
///   stored row by row (``RowStore``), so only the bad row is refused.
/// - A device's acknowledgement is published after a commit that moved it, at most once a
///   second per device; on every (re)connection every known device's is published again.
/// - Gaps are asked for as ``StoreLedger`` decides.
public struct CollectorMachine: Sendable {
    /// What the driver does.
    public enum Action: Sendable {
        case connectDatabase
        /// Read the registered devices again (`[collect] devices = known`).
        case readRegistered
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
        /// Devices were forgotten: give the memory they held back to the system.
        case releaseMemory
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
        /// Devices whose streams the store reads before the rows (``StreamReading``).
        public var read: [String] = []
    }

    private enum Database: Sendable {
        case connecting
        case up
        /// A store is in progress: what it holds.
        case storing(Batch)
        /// Rows cannot be stored until `retryAt`: then the connection is made again
        /// (`reconnect`: it broke or was never made) or the rows are tried on it again.
        case down(retryAt: ContinuousClock.Instant, reconnect: Bool)
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
    private var backoff = Backoff(first: .seconds(1), cap: .seconds(60))
    private var fault = StoreFault()
    /// Transactions lost to a deadlock or serialisation failure in a row, tried again at once.
    private var transientRetries = 0
    /// How many of them in a row are tried again at once before it counts as a fault.
    static let transientRetries = 3
    private var notes = RefusalNotes()
    /// The devices `[collect] devices = known` admits, and when they were last read.
    private var registered = Set<String>()
    private var registeredReadAt: ContinuousClock.Instant?
    /// How often the registered devices are read again (a device registered meanwhile is
    /// taken within this long).
    static let registeredEvery: Duration = .seconds(30)
    var ledger = StoreLedger()
    /// The devices whose rows do not reach the store while they say they hold them.
    var behind = DevicesBehind()
    /// Connected once at least: settings that cannot work are then retried, not fatal.
    private var everConnected = false
    /// Alone (not in a share group): the devices whose streams were read from the database
    /// on this connection, those to read with the next batch, and the hellos that wait for
    /// their device's reading (``StreamReading``).
    var toRead = Set<String>()
    var deferredHellos: [String: [(hello: CollectorMessages.Hello, owner: String)]] = [:]
    /// What is kept of each device heard (its prefix, incarnation, when, whether read).
    var known: HeardDevices
    var rows: [DeviceRow] = []
    private var openedAt: ContinuousClock.Instant?
    var updates: [String: RowStore.DeviceUpdate] = [:]
    /// Devices whose acknowledgement moved and is not published yet, and when each was
    /// last published: at most one a second per device, however many batches touched it.
    var pendingAcks = Set<String>()
    private var lastAck: [String: ContinuousClock.Instant] = [:]
    /// When the quiet devices were last looked for (``forgetQuiet(at:)``).
    private var lastSweep: ContinuousClock.Instant?
    /// A device that sent no row, and nothing for this long, is forgotten (its name and
    /// topic): made-up ids on a broker without ACLs do not hold memory for good.
    static let quietAfter: Duration = .seconds(600)
    private var brokerProblem: String?
    /// The broker connection's lines (lost, subscribed, back): six a minute at most.
    private var brokerLines = LinePace(limit: 6)
    /// In a `[collect] share` group: the devices this member acknowledges, and when its last
    /// round with the database began (one a second, rows or not).
    var ownership = AckOwnership()
    var lastRound: ContinuousClock.Instant?
    var isShared: Bool { settings.share != nil }
    /// What it is doing, for the status file.
    public internal(set) var state = CollectorState()

    /// A machine that has not started.
    public init(settings: CollectSettings, window: Duration = .seconds(1)) {
        self.settings = settings
        self.window = window
        known = HeardDevices(pattern: settings.topicPrefix)
    }

    /// The devices known (for tests and the status).
    public var devices: [String] { ledger.devices }

    // MARK: events

    /// The collector starts.
    public mutating func started(at date: Date) -> [Action] {
        state.started = date
        return [.connectDatabase]
    }

    /// The database answered (on a new connection). Alone, nothing the collector knew of
    /// what is stored survives it: each device is read again from this server before it is
    /// told anything (``StreamReading``).
    public mutating func databaseConnected(
        serverVersion: Int, registered devices: Set<String>? = nil, at now: ContinuousClock.Instant, date: Date
    ) -> [Action] {
        var actions: [Action] = []
        if !isShared { forgetWhatWasRead() }
        if let devices {
            registered = devices
            registeredReadAt = now
        }
        if !everConnected {
            everConnected = true
            actions.append(.say(.info("connected to PostgreSQL (server \(serverVersion))", from: .collector)))
        }
        database = .up
        // Connected is not stored: a server that takes connections may still refuse the rows
        // (a disk full, read only). With rows waiting, the store that follows ends the fault.
        if rows.isEmpty && updates.isEmpty { actions += faultEnded(at: now) }
        if case .paused = broker {
            // Back with the rows that waited: store them, then come back to the broker.
            actions += closeBatch(at: now, force: true)
        }
        if case .connected = broker { actions += acknowledgeAll(at: now, date: date) }
        return actions + due(at: now, date: date)
    }

    /// The database could not be reached or prepared.
    public mutating func databaseFailed(_ error: DatabaseError, at now: ContinuousClock.Instant) -> [Action] {
        // At the start, settings that cannot work stop it (78: the unit does not restart it
        // in a loop, nor stay "active" storing nothing); later in a run they are retried,
        // since a password changed under a running collector may be changed back.
        if error.isConfiguration, !everConnected || Self.isNewer(error) {
            return [
                .fail(
                    ServiceFailure(
                        service: .collector, kind: .configuration,
                        message: Self.isNewer(error)
                            ? error.description
                            : "\(error.description): check [collect] database, password-file and the role's privileges "
                                + "(it must own the database or may create tables in it)",
                        remedy: .check("[collect] database and password-file")))
            ]
        }
        if case .library = error {
            return [.fail(ServiceFailure(service: .collector, kind: .unavailable, message: error.description))]
        }
        return cannotStore(error, reconnect: true, at: now)
    }

    /// Rows cannot be stored for `error`: retried after the back-off's pause, the fault said
    /// as ``StoreFault`` says it.
    private mutating func cannotStore(_ error: DatabaseError, reconnect: Bool, at now: ContinuousClock.Instant)
        -> [Action]
    {
        let pause = backoff.failed()
        state.database = .down
        state.databaseError = error.description
        state.databaseFault = StoreFault.label(StoreFault.kind(error))
        database = .down(retryAt: now + pause, reconnect: reconnect)
        // Nothing moves while rows cannot be stored; the fault is what is said of it.
        behind.reset()
        let line = fault.happened(error, retryIn: pause, at: now)
        return (line.map { [.say(.warning($0, from: .collector))] } ?? []) + [.wake(after: pause)]
    }

    /// Rows are stored again (or the database answers with none waiting): the fault's end,
    /// said once.
    private mutating func faultEnded(at now: ContinuousClock.Instant) -> [Action] {
        state.database = .connected
        state.databaseError = nil
        state.databaseFault = nil
        backoff.succeeded()
        return fault.ended(at: now).map { [.say(.info($0, from: .collector))] } ?? []
    }

    private static func isNewer(_ error: DatabaseError) -> Bool {
        if case .newerSchema = error { return true }
        return false
    }

    /// The broker accepted the connection.
    public mutating func brokerConnected(generation: Int, at now: ContinuousClock.Instant, date: Date) -> [Action] {
        broker = .connected(generation: generation)
        state.broker = .connected
        // In a share group the broker hands each row to one member; every member hears every
        // hello and status.
        let history = settings.share.map { "$share/\($0)/" } ?? ""
        var actions: [Action] = [
            .subscribe(
                ["\(history)\(settings.topicPrefix)/history"]
                    + ["status", "hello"].map { "\(settings.topicPrefix)/\($0)" })
        ]
        actions += brokerLine(
            .info("subscribed to \(history)\(settings.topicPrefix)/history", from: .collector), at: now)
        // Trouble is said once when it begins and once when it ends, as the logger says it.
        if brokerProblem != nil {
            brokerProblem = nil
            actions += brokerLine(.info("the broker answers again", from: .collector), at: now)
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
                        service: .collector, kind: .configuration, message: problem.message(section: "[collect]"),
                        remedy: .check("[collect] username and broker-password-file")))
            ]
        }
        let message = problem.message(section: "[collect]")
        state.broker = .connecting(message)
        guard message != brokerProblem else { return [] }
        brokerProblem = message
        return brokerLine(.warning("\(message); retrying", from: .collector), at: now)
    }

    /// `notice`, when ``brokerLines`` lets it be said at `now` (naming the lines left out).
    private mutating func brokerLine(_ notice: ServiceNotice, at now: ContinuousClock.Instant) -> [Action] {
        let pace = brokerLines.admit(at: now)
        guard pace.say else { return [] }
        var notice = notice
        notice.message = LinePace.line(notice.message, leftOut: pace.leftOut)
        return [.say(notice)]
    }

    /// A message on a subscribed topic; `retained`: the broker's stored copy (a status or
    /// hello handed over at the subscription), which says what the device last said, not
    /// that it speaks now: it never moves `last_seen`.
    public mutating func received(
        topic: String, payload: String, retained: Bool = false, at now: ContinuousClock.Instant, date: Date
    ) -> [Action] {
        let message = IncomingMessage.judge(
            topic: topic, payload: payload, settings: settings, registered: registered, now: date)
        let sender: IncomingMessage.Sender
        switch message {
        case .ignored: return []
        case .refused(let device, let reason, let label): return refuse(device: device, reason, label: label, at: now)
        case .row(let from, _), .status(let from, _), .hello(let from, _): sender = from
        }
        let device = sender.device
        known.heard(device, prefix: sender.prefix, at: now)
        var update = updates[device] ?? RowStore.DeviceUpdate(prefix: sender.prefix, seen: date, heard: !retained)
        update.seen = date
        update.heard = update.heard || !retained
        var actions: [Action] = []
        switch message {
        case .row(_, var row):
            row.received = date
            rows.append(row)
            // The hello names the current incarnation; a row only until one did (a row of
            // an older logbook still queued at the broker must not turn the acks back to it).
            if known.incarnation(of: device) == nil {
                known.setIncarnation(row.incarnation, of: device)
                update.incarnation = row.incarnation
            }
            if !isShared { needsReading(device) }
            update.lag = Int64(max(0, date.timeIntervalSince(row.time)) * 1000)
        case .status(_, let status):
            update.status = status
            if status == "offline" { behind.rest(device: device) }
        case .hello(_, let hello):
            update.software = hello.software
            known.setIncarnation(hello.incarnation, of: device)
            update.incarnation = hello.incarnation
            let owner = StreamOwner.name(device: device, incarnation: hello.incarnation)
            if isShared {
                ownership.wait(hello, device: device, owner: owner)
            } else if known.isRead(device) {
                actions += check(hello, device: device, owner: owner, update: &update, date: date)
            } else {
                // Checked against what the database holds, once it was read.
                deferredHellos[device, default: []].append((hello, owner))
                needsReading(device)
            }
        case .ignored, .refused: return []
        }
        updates[device] = update
        // A device's news (a row, its status, its hello) waits at most a window.
        if openedAt == nil {
            openedAt = now
            actions.append(.wake(after: window))
        }
        if rows.count >= settings.batch { actions += closeBatch(at: now, force: false) }
        // A member of a share group leaves at once: it keeps no session, so the broker hands
        // the rows to the members that can store them, instead of this one holding them.
        if isDown && (isShared || rows.count >= bufferLimit), case .connected = broker {
            broker = .paused
            state.broker = .paused("rows cannot be stored (\(count: rows.count, "row") held)")
            let rest = isShared ? "the group's other members take the rest" : "the broker queues the rest"
            actions += [
                .pauseBroker,
                .say(
                    .warning(
                        "pausing: rows cannot be stored (\(count: rows.count, "row") held); \(rest)", from: .collector)),
            ]
        }
        return actions
    }

    /// A message the connection did not hand over: too large, or not UTF-8.
    public mutating func unreadable(topic: String, problem: MQTTPayloadProblem, at now: ContinuousClock.Instant)
        -> [Action]
    {
        switch IncomingMessage.unreadable(topic: topic, problem: problem, settings: settings) {
        case .refused(let device, let reason, let label): return refuse(device: device, reason, label: label, at: now)
        default: return []
        }
    }

    /// The registered devices as the database holds them now (`[collect] devices = known`).
    public mutating func registeredRead(_ devices: Set<String>, at now: ContinuousClock.Instant) -> [Action] {
        registered = devices
        registeredReadAt = now
        return []
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
        transientRetries = 0
        var actions: [Action] = faultEnded(at: now)
        for (row, error) in refused {
            actions += refuse(device: row.device, "\(row.id): \(error)", label: .database, at: now)
        }
        for device in outcome.refusedDevices {
            actions += refuse(
                device: device, "the device's news was refused by the database", label: .database, at: now)
        }
        if let view = outcome.view {
            // The database's word replaces this member's: the group stored what it did.
            actions += viewed(view, roundStarted: now - took, at: now, date: date)
        } else if !isShared {
            actions += read(batch, streams: outcome.streams, at: now, date: date)
            for ack in ledger.stored(kept, at: now) { pendingAcks.insert(ack.device) }
            ledger.written(batch.throughs)
            for owner in Set(kept.map(\.owner)) { behind.look(at: owner, reach: ledger.reach(of: owner), date: date) }
        }
        pendingAcks.formUnion(ledger.takeDue())
        state.stored += kept.count
        let plausible = PartitionMonth.span(now: date)
        for row in kept {
            state.storedByKind[row.kind.rawValue, default: 0] += 1
            if !plausible.contains(row.time) { state.misdated += 1 }
            state.lagSeconds.observe(max(0, date.timeIntervalSince(row.time)))
        }
        state.batchSeconds.observe(max(0, Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18))
        if case .paused = broker, rows.count < bufferLimit {
            broker = .connecting
            state.broker = .connecting(nil)
            actions.append(.resumeBroker)
        }
        // What arrived meanwhile may already be due.
        if rows.count >= settings.batch { actions += closeBatch(at: now, force: false) }
        return actions + due(at: now, date: date)
    }

    /// The store failed: the rows wait, and are tried again after the back-off's pause (on
    /// a new connection when this one broke).
    public mutating func storeFailed(
        _ batch: CollectorMachine.Batch, error: DatabaseError, broken: Bool, at now: ContinuousClock.Instant
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
        state.buffered = rows.count
        // A deadlock or serialisation failure lost this transaction to another's (a share
        // group's member, a reader making a month's partition): tried again at once, said
        // nothing of — unless it keeps happening.
        if error.isTransient, !broken, transientRetries < Self.transientRetries {
            transientRetries += 1
            database = .up
            return closeBatch(at: now, force: true)
        }
        transientRetries = 0
        return cannotStore(error, reconnect: broken, at: now)
    }

    /// Time passed (a timer the machine asked for went off).
    public mutating func woke(at now: ContinuousClock.Instant, date: Date) -> [Action] {
        if case .down(let retryAt, let reconnect) = database {
            guard now >= retryAt else {
                // An earlier timer (the batch's window): the retry is still to come.
                return due(at: now, date: date) + [.wake(after: retryAt - now)]
            }
            if reconnect {
                database = .connecting
                return [.connectDatabase]
            }
            // The connection is good: the rows are tried on it again (due closes the batch).
            database = .up
        }
        return due(at: now, date: date)
    }

    /// The stop: what is held is stored if the database is up; every pending
    /// acknowledgement goes out.
    public mutating func stopping(at now: ContinuousClock.Instant, date: Date) -> [Action] {
        state.broker = .stopped
        guard isUp, !rows.isEmpty || !updates.isEmpty else { return flushAcks(at: now, date: date, force: !isShared) }
        return closeBatch(at: now, force: true)
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

    /// Whatever is due now: the batch's window, a share group's round, paced
    /// acknowledgements, replays.
    private mutating func due(at now: ContinuousClock.Instant, date: Date) -> [Action] {
        var actions: [Action] = forgetQuiet(at: now)
        if let line = notes.summary(at: now) { actions.append(.say(.warning(line, from: .collector))) }
        if let left = notes.summaryDue(at: now) { actions.append(.wake(after: max(left, .milliseconds(1)))) }
        if settings.devices == .known, isUp {
            if let read = registeredReadAt, now - read < Self.registeredEvery {
                actions.append(.wake(after: read + Self.registeredEvery - now))
            } else {
                registeredReadAt = now
                actions.append(.readRegistered)
            }
        }
        if let openedAt, now - openedAt >= window {
            actions += closeBatch(at: now, force: true)
        } else if let openedAt, isUp {
            // Woken early (by another deadline): the window is still to come.
            actions.append(.wake(after: openedAt + window - now))
        }
        if isShared, isUp, case .connected = broker {
            if let next = nextRound(at: now) {
                actions.append(.wake(after: next))
            } else {
                actions += closeBatch(at: now, force: true)
            }
        }
        actions += flushAcks(at: now, date: date, force: false)
        if isUp, case .connected = broker {
            for request in ledger.due(at: now) {
                let (device, incarnation) = StreamOwner.split(request.device)
                // A member asks only for its own devices' gaps: another's stream is not whole here.
                guard let prefix = known.prefix(of: device), !isShared || ownership.owns(device, at: now) else {
                    continue
                }
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

    /// Forgets, once a minute, the devices quiet for ``quietAfter`` with nothing pending:
    /// their names, topics, incarnations and (alone) their ledger, read again from the
    /// database when they come back. In a group, a device with a ledger is kept (the view
    /// of its lease holder's rounds keeps it).
    private mutating func forgetQuiet(at now: ContinuousClock.Instant) -> [Action] {
        if let lastSweep, now - lastSweep < .seconds(60) { return [] }
        lastSweep = now
        let waiting = Set(rows.map(\.device))
        let quiet = known.quiet(at: now, after: Self.quietAfter) { device in
            updates[device] != nil || waiting.contains(device) || toRead.contains(device)
                || ledger.owners(of: device).contains(where: pendingAcks.contains)
                // Alone, a device is read again when it comes back; in a group, the view says it.
                || (isShared ? ledger.holds(device: device) : ledger.hasGap(device: device))
        }
        lastAck = lastAck.filter { now - $0.value < .seconds(60) }
        guard !quiet.isEmpty else { return [] }
        for device in quiet {
            known.forget(device)
            behind.forget(device: device)
            if !isShared { ledger.forget(device: device) }
        }
        if isShared { ownership.forget(Set(quiet)) }
        return [.releaseMemory]
    }

    /// The batch as a store, when the database can take it.
    private mutating func closeBatch(at now: ContinuousClock.Instant, force: Bool) -> [Action] {
        let roundDue = isShared && nextRound(at: now) == nil
        guard isUp, !rows.isEmpty || !updates.isEmpty || roundDue, force || rows.count >= settings.batch else {
            return []
        }
        var taken = Array(rows.prefix(settings.batch))
        var batch: Batch
        if isShared {
            batch = sharedBatch(&taken, at: now)
        } else {
            // A device read from the database has had every commit since in its ledger: an
            // id it holds no version of has none stored (a row of a failed store, which may
            // have committed all the same, stays `true`). One not read yet may hold any.
            for index in taken.indices where taken[index].mayBeStored == nil {
                taken[index].mayBeStored =
                    known.isRead(taken[index].device) ? ledger.mayHold(taken[index]) : true
            }
            // Every stream a commit stores in has its `acknowledged` row; others only when moved.
            batch = Batch(rows: taken, devices: updates, throughs: ledger.throughs(afterStoring: taken))
            batch.read = toRead.sorted()
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
        guard let prefix = known.prefix(of: device) else { return nil }
        // Alone, a device is told only what was read from this database: never an empty
        // ledger's zeros, which would take back what it was told before.
        if !isShared && !known.isRead(device) { return nil }
        // In a share group only the device's one owner says it: two members' words could
        // reach the broker in either order.
        if isShared && !ownership.owns(device, at: now) { return nil }
        // The retained acknowledgement is the current incarnation's: an older one's would
        // replace it, and the device ignores it anyway.
        if let current = known.incarnation(of: device), current != incarnation { return nil }
        let ack = ledger.acknowledgement(for: owner)
        // What was told matters to a member only: its view is read again every second.
        if isShared { ownership.told(ack) }
        state.acksPublished += 1
        let message = CollectorMessages.Ack(
            through: ack.through, revised: ack.revised, time: date, incarnation: incarnation, stored: ack.stored)
        return .publish(topic: "\(prefix)/ack", payload: message.json, retain: true)
    }

    private mutating func refuse(
        device: String?, _ reason: String, label: RefusalReason, at now: ContinuousClock.Instant
    )
        -> [Action]
    {
        state.refused += 1
        state.refusedByReason[label.rawValue, default: 0] += 1
        var actions: [Action] = []
        if let line = notes.summary(at: now) { actions.append(.say(.warning(line, from: .collector))) }
        if notes.shouldSay(sender: device, at: now) {
            let from = device.map { "from \($0)" } ?? "on a topic without a device name"
            actions.append(
                .say(
                    .warning("refused a message \(from): \(reason) (\(state.refused) refused so far)", from: .collector)
                )
            )
        }
        if let left = notes.summaryDue(at: now) { actions.append(.wake(after: max(left, .milliseconds(1)))) }
        return actions
    }

    /// The status a running collector writes, as of now.
    public func status(at date: Date) -> CollectorState {
        var state = self.state
        state.buffered = rows.count
        state.devices = known.count
        if !isShared { state.leases = known.count }
        state.written = date
        var oldest = rows.first?.received
        if case .storing(let batch) = database, let first = batch.rows.first?.received {
            oldest = min(oldest ?? first, first)
        }
        state.oldestWaiting = oldest
        state.behind = behind.behind
        return state
    }
}
