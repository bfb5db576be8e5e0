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
/// - A failed connection or store is tried again as ``StoreLink`` says, the fault said
///   when it begins, when its kind changes and when it ends, never once per retry.
/// - Each message is judged alone (``IncomingMessage``) before anything of it is kept: a
///   refused one is counted by reason and said as ``RefusalNotes`` allows; it never
///   stops the rows of another device. A batch the database refuses for its data is
///   stored row by row (``RowStore``), so only the bad row is refused.
/// - What each device is told (its acknowledgement, the gaps asked for again) is as
///   ``AckPacing`` and ``StoreLedger`` decide (``Acknowledgements``).
public struct CollectorMachine: Sendable {
    /// `[collect]`.
    public let settings: CollectSettings
    /// How long a batch waits after its first row.
    public let window: Duration
    /// Rows held at most while the database is down.
    public var bufferLimit: Int { settings.batch * 4 }
    private(set) var database = StoreLink()
    private(set) var broker = BrokerConnection()
    private var notes = RefusalNotes()
    /// The devices `[collect] devices = known` admits.
    private var registered = RegisteredList()
    var ledger = StoreLedger()
    /// The devices whose rows do not reach the store while they say they hold them.
    var behind = DevicesBehind()
    /// Alone (not in a share group): the devices whose streams were read from the database
    /// on this connection, those to read with the next batch, and the hellos that wait for
    /// their device's reading (``StreamReading``).
    var toRead = Set<String>()
    var deferredHellos: [String: [(hello: CollectorMessages.Hello, owner: String)]] = [:]
    /// What is kept of each device heard (its prefix, incarnation, when, whether read).
    var known: HeardDevices
    /// What waits for the next store.
    var waiting = WaitingRows()
    /// Acknowledgements that moved and are not published yet.
    var acks = AckPacing()
    /// When the quiet devices were last looked for (``forgetQuiet(at:)``).
    var lastSweep: ContinuousClock.Instant?
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
        if let devices { registered.read(devices, at: now) }
        if database.connected() {
            actions.append(.say(.info("connected to PostgreSQL (server \(serverVersion))", from: .collector)))
        }
        // Connected is not stored: a server that takes connections may still refuse the rows
        // (a disk full, read only). With rows waiting, the store that follows ends the fault.
        if waiting.isEmpty { actions += faultEnded(at: now) }
        // Back with the rows that waited: store them, then come back to the broker.
        if broker.isPaused { actions += closeBatch(at: now, force: true) }
        if broker.isConnected { actions += acknowledgeAll(at: now, date: date) }
        return actions + due(at: now, date: date)
    }

    /// The database could not be reached or prepared.
    public mutating func databaseFailed(_ error: DatabaseError, at now: ContinuousClock.Instant) -> [Action] {
        if let failure = database.fatal(error) { return [.fail(failure)] }
        return cannotStore(error, reconnect: true, at: now)
    }

    /// Rows cannot be stored for `error`: retried after the back-off's pause, the fault said
    /// as ``StoreFault`` says it.
    private mutating func cannotStore(_ error: DatabaseError, reconnect: Bool, at now: ContinuousClock.Instant)
        -> [Action]
    {
        state.database = .down
        state.databaseError = error.description
        state.databaseFault = StoreFault.label(StoreFault.kind(error))
        let (pause, line) = database.failed(error, reconnect: reconnect, at: now)
        // Nothing moves while rows cannot be stored; the fault is what is said of it.
        behind.reset()
        return (line.map { [.say(.warning($0, from: .collector))] } ?? []) + [.wake(after: pause)]
    }

    /// Rows are stored again (or the database answers with none waiting): the fault's end,
    /// said once.
    private mutating func faultEnded(at now: ContinuousClock.Instant) -> [Action] {
        state.database = .connected
        state.databaseError = nil
        state.databaseFault = nil
        return database.ended(at: now).map { [.say(.info($0, from: .collector))] } ?? []
    }

    /// The broker accepted the connection.
    public mutating func brokerConnected(generation: Int, at now: ContinuousClock.Instant, date: Date) -> [Action] {
        state.broker = .connected
        // In a share group the broker hands each row to one member; every member hears every
        // hello and status.
        let history = "\(settings.share.map { "$share/\($0)/" } ?? "")\(settings.topicPrefix)/history"
        var actions: [Action] = [
            .subscribe([history] + ["status", "hello"].map { "\(settings.topicPrefix)/\($0)" })
        ]
        actions += broker.connected(generation: generation, subscribed: history, at: now).map { .say($0) }
        if database.isUp { actions += acknowledgeAll(at: now, date: date) }
        return actions
    }

    /// The broker is away (`problem` nil: this collector left it).
    public mutating func brokerDown(_ problem: MQTTProblem?, at now: ContinuousClock.Instant) -> [Action] {
        guard broker.dropped(), let problem else { return [] }
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
        return broker.trouble(message, at: now).map { .say($0) }
    }

    /// A message on a subscribed topic; `retained`: the broker's stored copy (a status or
    /// hello handed over at the subscription), which says what the device last said, not
    /// that it speaks now: it never moves `last_seen`.
    public mutating func received(
        topic: String, payload: String, retained: Bool = false, at now: ContinuousClock.Instant, date: Date
    ) -> [Action] {
        let message = IncomingMessage.judge(
            topic: topic, payload: payload, settings: settings, registered: registered.devices, now: date)
        let sender: IncomingMessage.Sender
        switch message {
        case .ignored: return []
        case .refused(let device, let reason, let label): return refuse(device: device, reason, label: label, at: now)
        case .row(let from, _), .status(let from, _), .hello(let from, _): sender = from
        }
        let device = sender.device
        known.heard(device, prefix: sender.prefix, at: now)
        var update =
            waiting.updates[device] ?? RowStore.DeviceUpdate(prefix: sender.prefix, seen: date, heard: !retained)
        update.seen = date
        update.heard = update.heard || !retained
        var actions: [Action] = []
        switch message {
        case .row(_, var row):
            row.received = date
            waiting.append(row)
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
            if status.flatMap(DeviceStatus.init(rawValue:)) == .offline { behind.rest(device: device) }
        case .hello(_, let hello):
            actions += heard(hello, device: device, update: &update, date: date)
        case .ignored, .refused: return []
        }
        waiting.updates[device] = update
        // A device's news (a row, its status, its hello) waits at most a window.
        if waiting.open(at: now) { actions.append(.wake(after: window)) }
        if waiting.rows.count >= settings.batch { actions += closeBatch(at: now, force: false) }
        // A member of a share group leaves at once: it keeps no session, so the broker hands
        // the rows to the members that can store them, instead of this one holding them.
        let held = waiting.rows.count
        if database.isDown && (isShared || held >= bufferLimit), broker.isConnected {
            broker.pause()
            state.broker = .paused("rows cannot be stored (\(count: held, "row") held)")
            let rest = isShared ? "the group's other members take the rest" : "the broker queues the rest"
            actions += [
                .pauseBroker,
                .say(
                    .warning(
                        "pausing: rows cannot be stored (\(count: held, "row") held); \(rest)", from: .collector)),
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
        registered.read(devices, at: now)
        return []
    }

    /// The batch was stored: `outcome` holds the rows the database refused for their data
    /// and, in a share group, its view of the devices this member acknowledges.
    public mutating func stored(
        _ batch: Batch, outcome: StoreOutcome = StoreOutcome(), took: Duration = .zero,
        at now: ContinuousClock.Instant, date: Date
    ) -> [Action] {
        database.stored()
        let refused = outcome.refused
        let refusedIDs = Set(refused.map(\.0.key))
        let kept = batch.rows.filter { !refusedIDs.contains($0.key) }
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
            acks.owe(ledger.stored(kept, at: now).map(\.device))
            ledger.written(batch.throughs)
            for owner in Set(kept.map(\.owner)) { behind.look(at: owner, reach: ledger.reach(of: owner), date: date) }
        }
        acks.owe(ledger.takeDue())
        state.stored += kept.count
        let plausible = PartitionMonth.span(now: date)
        for row in kept {
            state.storedByKind[row.kind.rawValue, default: 0] += 1
            if !plausible.contains(row.time) { state.misdated += 1 }
            state.lagSeconds.observe(max(0, date.timeIntervalSince(row.time)))
        }
        state.batchSeconds.observe(max(0, Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18))
        if broker.isPaused, waiting.rows.count < bufferLimit {
            broker.resume()
            state.broker = .connecting(nil)
            actions.append(.resumeBroker)
        }
        // What arrived meanwhile may already be due.
        if waiting.rows.count >= settings.batch { actions += closeBatch(at: now, force: false) }
        return actions + due(at: now, date: date)
    }

    /// The store failed: the rows wait, and are tried again after the back-off's pause (on
    /// a new connection when this one broke).
    public mutating func storeFailed(
        _ batch: CollectorMachine.Batch, error: DatabaseError, broken: Bool, at now: ContinuousClock.Instant
    ) -> [Action] {
        // The batch goes back in front of what arrived meanwhile. Its commit may have
        // happened all the same (a connection lost after it): its rows may be stored.
        waiting.putBack(batch, at: now)
        state.buffered = waiting.rows.count
        // A deadlock or serialisation failure lost this transaction to another's (a share
        // group's member, a reader making a month's partition): tried again at once, said
        // nothing of — unless it keeps happening.
        if database.retriesAtOnce(error, broken: broken) { return closeBatch(at: now, force: true) }
        return cannotStore(error, reconnect: broken, at: now)
    }

    /// Time passed (a timer the machine asked for went off).
    public mutating func woke(at now: ContinuousClock.Instant, date: Date) -> [Action] {
        switch database.woke(at: now) {
        // An earlier timer (the batch's window): the retry is still to come.
        case .waiting(let left): return due(at: now, date: date) + [.wake(after: left)]
        case .connect: return [.connectDatabase]
        // The connection is good: the rows are tried on it again (due closes the batch).
        case .retry, .nothing: return due(at: now, date: date)
        }
    }

    /// The stop: what is held is stored if the database is up; every pending
    /// acknowledgement goes out.
    public mutating func stopping(at now: ContinuousClock.Instant, date: Date) -> [Action] {
        state.broker = .stopped
        guard database.isUp, !waiting.isEmpty else { return flushAcks(at: now, date: date, force: !isShared) }
        return closeBatch(at: now, force: true)
    }

    /// The acknowledgements still owed after the last store of the stop (in a share group,
    /// only those a second after the device's last: the next lease holder says the rest).
    public mutating func finishing(at now: ContinuousClock.Instant, date: Date) -> [Action] {
        flushAcks(at: now, date: date, force: !isShared)
    }

    // MARK: the rules

    /// Whatever is due now: the batch's window, a share group's round, paced
    /// acknowledgements, replays.
    private mutating func due(at now: ContinuousClock.Instant, date: Date) -> [Action] {
        var actions: [Action] = forgetQuiet(at: now)
        actions += said(notes.due(at: now))
        if settings.devices == .known, database.isUp {
            actions.append(registered.due(at: now).map { .wake(after: $0) } ?? .readRegistered)
        }
        if let left = waiting.windowLeft(window, at: now) {
            if left <= .zero {
                actions += closeBatch(at: now, force: true)
            } else if database.isUp {
                // Woken early (by another deadline): the window is still to come.
                actions.append(.wake(after: left))
            }
        }
        if isShared, database.isUp, broker.isConnected {
            if let next = nextRound(at: now) {
                actions.append(.wake(after: next))
            } else {
                actions += closeBatch(at: now, force: true)
            }
        }
        actions += flushAcks(at: now, date: date, force: false)
        if database.isUp, broker.isConnected { actions += replays(at: now) }
        return actions
    }

    /// The batch as a store, when the database can take it.
    private mutating func closeBatch(at now: ContinuousClock.Instant, force: Bool) -> [Action] {
        let roundDue = isShared && nextRound(at: now) == nil
        guard database.isUp, !waiting.isEmpty || roundDue, force || waiting.rows.count >= settings.batch else {
            return []
        }
        var (taken, news) = waiting.take(settings.batch, at: now)
        var batch: Batch
        if isShared {
            batch = sharedBatch(&taken, devices: news, at: now)
        } else {
            // A device read from the database has had every commit since in its ledger: an
            // id it holds no version of has none stored (a row of a failed store, which may
            // have committed all the same, stays `true`). One not read yet may hold any.
            for index in taken.indices where taken[index].mayBeStored == nil {
                taken[index].mayBeStored =
                    known.isRead(taken[index].device) ? ledger.mayHold(taken[index]) : true
            }
            // Every stream a commit stores in has its `acknowledged` row; others only when moved.
            batch = Batch(rows: taken, devices: news, throughs: ledger.throughs(afterStoring: taken))
            batch.read = toRead.sorted()
        }
        database.store(batch)
        state.buffered = waiting.rows.count
        return [.store(batch)] + (waiting.rows.isEmpty ? [] : [.wake(after: window)])
    }

    private mutating func refuse(
        device: String?, _ reason: String, label: RefusalReason, at now: ContinuousClock.Instant
    ) -> [Action] {
        state.refused += 1
        state.refusedByReason[label.rawValue, default: 0] += 1
        return said(notes.refused(sender: device, reason: reason, count: state.refused, at: now))
    }

    /// Refusal lines as warnings, and the wake for the next summary.
    private func said(_ notes: (lines: [String], wake: Duration?)) -> [Action] {
        notes.lines.map { .say(.warning($0, from: .collector)) } + (notes.wake.map { [.wake(after: $0)] } ?? [])
    }
}
