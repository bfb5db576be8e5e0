import Airloc
import Fleet
import Foundation
import Geo
import Platform
import Web

/// `airloc collect`: every device's published rows, stored in PostgreSQL exactly once and
/// acknowledged end to end (docs/collector.md).
///
/// Contract:
/// - Subscribes with a persistent session, QoS 1, to `<topic-prefix>/history`, `/status`
///   and `/hello`. libmosquitto acknowledges each message on receipt, so the broker's
///   acknowledgement proves nothing: a row counts only when its transaction committed,
///   and only then is `<device prefix>/ack` published (retained).
/// - Rows wait in a bounded batch (``CollectorPlan/batch``); while the database is down
///   none is acknowledged, and when the batch is full the collector leaves the broker
///   (which queues for its persistent session) until the database is back and the batch
///   is stored. The database is retried with back-off, 1 s doubling to 30 s.
/// - A malformed, hostile or foreign row is refused, counted and logged (at most one line
///   per device a minute), never half-stored; the others go on.
/// - Gaps are asked for (`<device prefix>/replay`) as ``StoreLedger`` decides.
/// - Ends when the calling task is cancelled, after storing what it holds if it can.
public final class Collector: @unchecked Sendable {
    public let plan: CollectorPlan
    public let time: any TimeSource
    public let notify: @Sendable (String) -> Void

    private let lock = NSLock()
    private var stopping = false
    private var snapshot = CollectorState()

    private var database: PostgresConnection?
    private var connection: MQTTConnection?
    private var greetedConnection = 0
    private var ledger = StoreLedger()
    private var loaded = false
    private var prefixes: [String: String] = [:]
    private var buffer: [DeviceRow] = []
    private var bufferedSince: ContinuousClock.Instant?
    private var updates: [String: RowStore.DeviceUpdate] = [:]
    private var state = CollectorState()
    private var retryAt: ContinuousClock.Instant?
    private var retryDelay: Duration = .seconds(1)
    private var lastRefusalNote: [String: ContinuousClock.Instant] = [:]
    private var lastStatusWrite: ContinuousClock.Instant?
    /// Devices whose acknowledgement moved and is not published yet, and when each was
    /// last published: at most one a second per device, however many batches touched it.
    private var pendingAcks = Set<String>()
    private var lastAck: [String: ContinuousClock.Instant] = [:]

    public init(
        plan: CollectorPlan, time: any TimeSource = SystemTime(), notify: @escaping @Sendable (String) -> Void
    ) {
        self.plan = plan
        self.time = time
        self.notify = notify
    }

    /// What it is doing now (for a status file, and for tests).
    public var current: CollectorState { lock.withLock { snapshot } }

    /// Why a collector cannot run at all.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// libpq is not installed (or too old): 69.
        case unavailable(String)
        /// A newer schema, refused broker credentials: a configuration matter, 78.
        case configuration(String)

        public var description: String {
            switch self {
            case .unavailable(let reason), .configuration(let reason): return reason
            }
        }
    }

    /// Runs until the task is cancelled; returns why it could not run at all, nil after a stop.
    public func run() async -> Failure? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Failure?, Never>) in
                let thread = Thread { [self] in continuation.resume(returning: loop()) }
                thread.name = "airloc-collect"
                thread.start()
            }
        } onCancel: {
            lock.withLock { stopping = true }
        }
    }

    private func loop() -> Failure? {
        state.started = time.date
        if let file = plan.statusFile {
            do { try PrivateDirectory.ensure(file.deletingLastPathComponent()) } catch {
                notify("cannot keep \(file.path) for collect status: \(error)")
            }
        }
        defer {
            connection?.close()
            database?.close()
            state.broker = "stopped"
            publishState(force: true)
        }
        while !lock.withLock({ stopping }) {
            let before = (buffer.count, state.stored)
            if let fatal = round() { return fatal }
            publishState(force: false)
            // Nothing came and nothing was stored: wait a little rather than spin while a
            // batch fills (its 100 ms window) or the database is away.
            if (buffer.count, state.stored) == before { usleep(10_000) }
        }
        if database != nil, !buffer.isEmpty { commit() }
        flushAcks(force: true)
        return nil
    }

    /// Publishes the pending acknowledgements a second or more after each device's last.
    private func flushAcks(force: Bool) {
        guard !pendingAcks.isEmpty, let connection, connection.isConnected else { return }
        let now = time.now
        for device in pendingAcks.sorted() {
            if !force, let last = lastAck[device], now - last < .seconds(1) { continue }
            pendingAcks.remove(device)
            lastAck[device] = now
            publishAck(ledger.acknowledgement(for: device))
        }
    }

    /// One round: the database, the broker, the messages, a commit when due, replays.
    private func round() -> Failure? {
        let now = time.now
        if let fatal = ensureDatabase(now: now) { return fatal }
        ensureBroker()
        if let connection {
            if connection.credentialsRefused {
                return .configuration(connection.lastError ?? "the broker refused the credentials")
            }
            state.broker =
                connection.isConnected ? "connected" : "connecting: \(connection.lastError ?? "no answer yet")"
            if connection.isConnected && connection.connectionCount != greetedConnection {
                greetedConnection = connection.connectionCount
                for topic in ["history", "status", "hello"] { connection.subscribe("\(plan.topicPrefix)/\(topic)") }
                if database != nil { for device in ledger.devices { publishAck(ledger.acknowledgement(for: device)) } }
                notify("subscribed to \(plan.topicPrefix)/history on \(plan.brokerPlace)")
            }
            let room = max(0, plan.bufferLimit - buffer.count)
            for message in connection.takeMessages(limit: room) { receive(message, now: now) }
        }
        let due = buffer.count >= plan.batch || (bufferedSince.map { now - $0 >= .milliseconds(100) } ?? false)
        if database != nil, due || !updates.isEmpty { commit() }
        flushAcks(force: false)
        if database != nil, let connection, connection.isConnected {
            for request in ledger.due(at: time.now) {
                guard let prefix = prefixes[request.device] else { continue }
                let message = CollectorMessages.Replay(kind: request.kind.rawValue, from: request.from)
                _ = try? connection.publish("\(prefix)/replay", message.json)
                state.replaysAsked += 1
            }
        }
        // Full, and nowhere to put it: leave the broker, which keeps the rest queued.
        if database == nil, buffer.count >= plan.bufferLimit, let connection {
            connection.close()
            self.connection = nil
            state.broker = "paused: the database is down and \(buffer.count) rows wait"
            notify("pausing: \(buffer.count) rows wait for the database; the broker queues the rest")
        }
        return nil
    }

    private func ensureDatabase(now: ContinuousClock.Instant) -> Failure? {
        guard database == nil else { return nil }
        if let retryAt, now < retryAt { return nil }
        do {
            let connection = try PostgresConnection(
                conninfo: plan.conninfo, password: plan.password, connectTimeout: plan.connectTimeout)
            try CollectorSchema.prepare(connection)
            if !loaded {
                prefixes.merge(try RowStore(database: connection).load(into: &ledger)) { $1 }
                loaded = true
            }
            database = connection
            if state.database != "connected" { notify("connected to PostgreSQL (server \(connection.serverVersion))") }
            state.database = "connected"
            state.databaseError = nil
            retryDelay = .seconds(1)
            retryAt = nil
        } catch {
            if case .newerSchema = error { return .configuration(error.description) }
            if case .library = error { return .unavailable(error.description) }
            let reason = error.description
            if reason != state.databaseError { notify("\(reason); retrying (rows are not acknowledged meanwhile)") }
            state.database = "down"
            state.databaseError = reason
            retryAt = now + retryDelay
            retryDelay = min(retryDelay * 2, .seconds(30))
        }
        return nil
    }

    private func ensureBroker() {
        guard connection == nil else { return }
        // Paused: back only once the database is up and the waiting rows are stored.
        guard database != nil || buffer.count < plan.bufferLimit else { return }
        do {
            let connection = try MQTTConnection(options: plan.broker)
            try connection.start()
            self.connection = connection
            greetedConnection = 0
            state.broker = "connecting"
        } catch {
            state.broker = "cannot connect: \(error)"
        }
    }

    private func receive(_ message: (topic: String, payload: String), now: ContinuousClock.Instant) {
        guard let (device, rest) = plan.settings.device(inTopic: message.topic) else { return }
        let prefix = String(message.topic.dropLast(rest.count + 1))
        prefixes[device] = prefix
        var update = updates[device] ?? RowStore.DeviceUpdate(prefix: prefix, seen: time.date)
        update.seen = time.date
        switch rest {
        case "history":
            do {
                let row = try DeviceRow(device: device, payload: message.payload, now: time.date)
                buffer.append(row)
                bufferedSince = bufferedSince ?? now
                update.lag = Int64(max(0, time.date.timeIntervalSince(row.time)) * 1000)
            } catch {
                refuse(device: device, error.description, now: now)
                return
            }
        case "status":
            let status = String(message.payload.prefix(40))
            update.status = status.isEmpty ? nil : status
        case "hello":
            guard let hello = CollectorMessages.Hello(json: message.payload), hello.device == device else {
                refuse(device: device, "a hello that is not this device's", now: now)
                return
            }
            update.software = hello.software
            var first: [DeviceRow.Kind: Int64] = [:]
            for (kind, id) in hello.first { if let kind = DeviceRow.Kind(rawValue: kind) { first[kind] = id } }
            if ledger.declared(device: device, first: first) != nil { ledger.markDue(device) }
        default: return
        }
        updates[device] = update
    }

    private func refuse(device: String, _ reason: String, now: ContinuousClock.Instant) {
        state.refused += 1
        if let last = lastRefusalNote[device], now - last < .seconds(60) { return }
        lastRefusalNote[device] = now
        notify("refused a message from \(device): \(reason) (\(state.refused) refused so far)")
    }

    private func commit() {
        guard let database else { return }
        let rows = buffer
        var preview = ledger
        _ = preview.stored(rows, at: time.now)
        do {
            let refused = try RowStore(database: database).write(
                rows: rows, devices: updates, throughs: preview.throughs)
            let refusedIDs = Set(refused.map { "\($0.0.device)\u{0}\($0.0.id)" })
            let stored = rows.filter { !refusedIDs.contains("\($0.device)\u{0}\($0.id)") }
            for (row, error) in refused { refuse(device: row.device, "\(row.id): \(error)", now: time.now) }
            for ack in ledger.stored(stored, at: time.now) { pendingAcks.insert(ack.device) }
            pendingAcks.formUnion(ledger.takeDue())
            state.stored += stored.count
            buffer.removeAll(keepingCapacity: true)
            bufferedSince = nil
            updates.removeAll()
        } catch {
            notify("\(error); keeping \(rows.count) rows to store when it is back")
            state.databaseError = error.description
            if error.isBroken {
                self.database?.close()
                self.database = nil
                state.database = "down"
                retryAt = time.now + retryDelay
            }
        }
    }

    private func publishAck(_ ack: StoreLedger.Acknowledgement) {
        guard let prefix = prefixes[ack.device], let connection, connection.isConnected else { return }
        var through: [String: Int64] = [:]
        for (kind, id) in ack.through { through[kind.rawValue] = id }
        let message = CollectorMessages.Ack(through: through, revised: ack.revised, time: time.date)
        _ = try? connection.publish("\(prefix)/ack", message.json, retain: true)
        state.acksPublished += 1
    }

    private func publishState(force: Bool) {
        let now = time.now
        state.buffered = buffer.count
        if !force, let last = lastStatusWrite, now - last < .seconds(2) { return }
        state.devices = ledger.deviceCount
        lastStatusWrite = now
        state.written = time.date
        lock.withLock { snapshot = state }
        if let file = plan.statusFile { try? state.json.write(to: file, atomically: true, encoding: .utf8) }
    }
}
