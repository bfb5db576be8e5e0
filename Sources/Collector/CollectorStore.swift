import FleetStore
import FleetWire
import Foundation
import Platform

/// Where the collector keeps what it stored: the seam between ``CollectorDriver`` and
/// PostgreSQL, so that the driver's timing runs in-process in tests on a store of the
/// test's own.
///
/// Contract: ``open()`` connects (and makes or migrates the schema). ``write(_:)`` first
/// reads the streams of the batch's `read` devices as the database holds them (their
/// `through` and the ids stored above it), then stores the batch in one transaction, and
/// returns those streams, the rows refused for their data and, for a batch of a
/// `[collect] share` group, the database's view of the devices this member acknowledges
/// (``ShareGroup``); a failure that broke the connection (``DatabaseError/isBroken``)
/// needs ``open()`` again. Neither ever blocks a cooperative thread.
public protocol CollectorStore: Sendable {
    func open() async -> Result<StoreOpening, DatabaseError>
    func write(_ batch: CollectorMachine.Batch) async -> Result<StoreOutcome, DatabaseError>
    func close() async
    /// What the store did beside the rows since the last call (a month dropped), for stderr.
    func takeNotices() -> [ServiceNotice]
    /// The devices registered with `airloc collect register` (`[collect] devices = known`).
    func registered() async -> Result<Set<String>, DatabaseError>
}

extension CollectorStore {
    /// A store that does nothing beside the rows has nothing to say.
    public func takeNotices() -> [ServiceNotice] { [] }
    /// A store of no registered devices.
    public func registered() async -> Result<Set<String>, DatabaseError> { .success([]) }
}

/// What a store says of a batch it wrote.
public struct StoreOutcome: Sendable {
    /// The rows refused for their data, and why.
    public var refused: [(DeviceRow, DatabaseError)]
    /// The devices whose news (status, hello) the database refused for its data.
    public var refusedDevices: [String] = []
    /// The streams of the batch's `read` devices, as the database held them before the batch.
    public var streams: [StoreLedger.StreamKey: (through: Int64, above: [Int64])] = [:]
    /// In a `[collect] share` group: what the database holds of the devices this member
    /// acknowledges (nil: not in a group).
    public var view: ShareView?

    /// An outcome.
    public init(refused: [(DeviceRow, DatabaseError)] = [], view: ShareView? = nil) {
        self.refused = refused
        self.view = view
    }
}

/// What a store says when it opens.
public struct StoreOpening: Sendable {
    /// The server's version (150018 for 15.18).
    public var serverVersion: Int
    /// The registered devices (nil: not asked, `[collect] devices = any`).
    public var registered: Set<String>?

    /// What a store said.
    public init(serverVersion: Int, registered: Set<String>? = nil) {
        self.serverVersion = serverVersion
        self.registered = registered
    }
}

/// The collector's PostgreSQL: one connection, each command on a thread of its own
/// (libpq blocks), one at a time. It makes the month partitions a batch needs before the
/// batch's transaction, and applies `[collect] keep` at its first batch and every hour after.
public final class PostgresStore: CollectorStore {
    private let plan: CollectorPlan
    private let connection = Lock<PostgresConnection?>(nil)
    /// The partitions known to be there, when ``Retention`` was last applied, and until when
    /// a month's partition that could not be made is not tried again (said once an hour,
    /// not with every batch).
    private let kept = Lock<(months: Set<PartitionMonth.Needed>, applied: Date, refusedUntil: Date)>(
        ([], .distantPast, .distantPast))
    private let notices = Lock<[ServiceNotice]>([])
    /// The lineage of the server last written to in this run: a server behind it is
    /// refused (``ServerLineage``).
    private let lineage = Lock<ServerLineage?>(nil)

    /// The database `plan` names.
    public init(plan: CollectorPlan) { self.plan = plan }

    /// Connects and prepares the schema (see ``CollectorStore``).
    public func open() async -> Result<StoreOpening, DatabaseError> {
        let plan = self.plan
        let opened = await BlockingWork.run("airloc-collect-db") { _ in
            Result { () throws(DatabaseError) -> (PostgresConnection, StoreOpening) in
                let (connection, lineage, passedOver) = try PostgresConnection.writable(
                    conninfo: plan.conninfo, password: plan.password, connectTimeout: plan.connectTimeout,
                    after: self.lineage.withLock { $0 })
                if let lineage { self.lineage.withLock { $0 = lineage } }
                for refusal in passedOver { self.say(.warning("PostgreSQL at \(refusal)")) }
                do throws(DatabaseError) {
                    // Its statements are short: compiling one (PostgreSQL's JIT, for a plan
                    // over many months' partitions) took half a second and saved nothing.
                    try connection.execute("SET jit = off")
                    // A collector frozen inside a transaction (a paused VM, SIGSTOP) would hold
                    // its locks, and every other member of its group would wait on them for
                    // ever: PostgreSQL ends such a session, and the others go on.
                    try connection.execute("SET idle_in_transaction_session_timeout = '15s'")
                    try CollectorSchema.prepare(connection)
                    var opening = StoreOpening(serverVersion: connection.serverVersion)
                    if plan.settings.devices == .known {
                        opening.registered = try RegisteredDevices.all(connection)
                    }
                    return (connection, opening)
                } catch {
                    connection.close()
                    throw error
                }
            }
        }
        return opened.map { connection, opening in
            self.connection.withLock { $0 = connection }
            return opening
        }
    }

    /// Stores a batch (see ``CollectorStore``).
    public func write(_ batch: CollectorMachine.Batch) async -> Result<StoreOutcome, DatabaseError> {
        guard let database = connection.withLock({ $0 }) else { return .failure(.connect("no connection")) }
        let retention = plan.retention
        let written = await BlockingWork.run("airloc-collect-db") { _ in
            Result { () throws(DatabaseError) in
                let now = Date()
                if now.timeIntervalSince(self.kept.withLock { $0.applied }) >= Retention.every {
                    self.kept.withLock { $0.applied = now }
                    try self.keep(retention, database, now: now)
                }
                let needed = PartitionMonth.months(for: batch.rows, now: now, keep: retention.keep)
                    .subtracting(self.kept.withLock { $0.months })
                if !needed.isEmpty, now >= self.kept.withLock({ $0.refusedUntil }) {
                    do throws(DatabaseError) {
                        try PartitionMonth.make(Array(needed), database)
                        self.kept.withLock { $0.months.formUnion(needed) }
                    } catch  where !error.isBroken {
                        // Rows of a month with no partition land in the default one: not lost.
                        self.kept.withLock { $0.refusedUntil = now.addingTimeInterval(Retention.every) }
                        self.say(
                            .warning(
                                "cannot make the month's partitions (\(error)); rows go to the default partition "
                                    + "(tried again in an hour)"))
                    }
                }
                let since = retention.keep.map { now.addingTimeInterval(-$0) }
                // What the database holds of devices the collector has not read yet, before
                // the batch: their acknowledgements start from it.
                let streams = try RowStore.streams(of: batch.read, database)
                let refusals = try RowStore(database: database, rollupSince: since).write(
                    rows: batch.rows, devices: batch.devices, throughs: batch.throughs)
                var outcome = StoreOutcome(refused: refusals.rows)
                outcome.refusedDevices = refusals.devices
                outcome.streams = streams
                guard let devices = batch.share else { return outcome }
                let refusedKeys = Set(refusals.rows.map(\.0.key))
                try ShareGroup.record(
                    batch.rows.filter { $0.revision > 0 && !refusedKeys.contains($0.key) }, database)
                guard batch.round else { return outcome }
                outcome.view = try ShareGroup.round(
                    member: self.plan.broker.clientID, devices: devices, database: database)
                return outcome
            }
        }
        if case .failure(let error) = written, error.isBroken {
            database.close()
            connection.withLock { $0 = nil }
            // Another collector may have dropped a month meanwhile: ask the database again.
            self.kept.withLock { $0 = ([], .distantPast, .distantPast) }
        }
        return written
    }

    /// The registered devices (see ``CollectorStore``).
    public func registered() async -> Result<Set<String>, DatabaseError> {
        guard let database = connection.withLock({ $0 }) else { return .failure(.connect("no connection")) }
        return await BlockingWork.run("airloc-collect-db") { _ in
            Result { () throws(DatabaseError) in try RegisteredDevices.all(database) }
        }
    }

    /// Applies `retention` once; a failure that left the connection usable (a lock waited
    /// for too long, a role that may not drop) is said and tried again in an hour, and
    /// never holds back the batch.
    private func keep(_ retention: Retention, _ database: PostgresConnection, now: Date) throws(DatabaseError) {
        do throws(DatabaseError) {
            if plan.settings.share != nil { try ShareGroup.prune(database) }
            let outcome = try retention.apply(database, now: now)
            if !outcome.dropped.isEmpty {
                say(.info("[collect] keep: dropped \(outcome.dropped.joined(separator: ", "))"))
            }
        } catch  where !error.isBroken {
            say(.warning("[collect] keep: \(error); trying again in an hour"))
        }
    }

    private func say(_ notice: ServiceNotice) {
        notices.withLock { $0.append(ServiceNotice(level: notice.level, message: notice.message, source: .collector)) }
    }

    /// What it did beside the rows (see ``CollectorStore/takeNotices()``).
    public func takeNotices() -> [ServiceNotice] {
        notices.withLock { notices in
            defer { notices.removeAll() }
            return notices
        }
    }

    /// Closes the connection; a member of a share group gives up its acknowledgement
    /// leases first, so that another takes its devices over at once.
    public func close() async {
        let database = connection.withLock { connection in
            defer { connection = nil }
            return connection
        }
        guard let database else { return }
        if plan.settings.share != nil {
            let member = plan.broker.clientID
            _ = await BlockingWork.run("airloc-collect-db") { _ in
                try? ShareGroup.leave(member: member, database)
            }
        }
        database.close()
    }
}
