import FleetWire
import Foundation

/// The collector's database as the fleet page reads it (`[serve] source = collector`):
/// a few connections of its own, opened as requests need them.
///
/// Contract:
/// - Every connection is read-only (`default_transaction_read_only`) unless made for
///   `serve share`, and every statement
///   ends within ``statementTimeout`` seconds, so a slow query cannot hold a page's thread
///   for ever; a connection attempt takes at most 5 s.
/// - At most ``size`` connections are open; a request beyond them waits for one.
/// - A broken connection is closed and the next request opens a new one: PostgreSQL
///   restarted under a running `serve` costs the requests of that moment, nothing more.
/// - The schema must be the collector's (``CollectorSchema/version`` or older, from 5 on);
///   nothing here creates or migrates a table.
public final class FleetDatabase: @unchecked Sendable {
    /// The first collector schema the fleet page reads (the one with share links).
    public static let shareSchema = 5
    /// The newest collector schema this airloc knows.
    public static let newestSchema = CollectorSchema.version
    /// Seconds a statement may run.
    public static let statementTimeout = 10
    /// Connections at most.
    public let size: Int
    /// The database as people may see it (no password).
    public let name: String
    private let conninfo: String
    private let password: String?
    private let writable: Bool
    // @unchecked: `idle` and `open` are guarded by `condition`.
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var open = 0

    /// The database of `[collect] database`, its password from `[collect] password-file`.
    /// `writable`: for `serve share`, which stores and revokes share links; `serve` itself
    /// never writes.
    public init(settings: CollectSettings, size: Int = 4, writable: Bool = false) throws(CollectorSetupError) {
        guard let database = settings.database else { throw .missing("database") }
        conninfo = database
        password = try settings.passwordFile.map { file throws(CollectorSetupError) in
            try DatabaseAccess.secret(file, key: "password-file")
        }
        name = DatabaseAccess.safeName(database)
        self.size = max(1, size)
        self.writable = writable
    }

    deinit { idle.forEach { $0.close() } }

    /// Runs `body` on a connection of the pool (waiting for one when all are in use).
    package func read<T>(_ body: (PostgresConnection) throws(DatabaseError) -> T) throws(DatabaseError) -> T {
        let connection = try take()
        do {
            let value = try body(connection)
            give(connection)
            return value
        } catch {
            if error.isBroken { discard(connection) } else { give(connection) }
            throw error
        }
    }

    /// The collector schema version the database holds (0: none yet).
    public func schemaVersion() throws(DatabaseError) -> Int {
        try read { database throws(DatabaseError) in
            let exists = try database.execute("SELECT to_regclass('airloc_collector') IS NOT NULL")
            guard exists.first?.first == "t" else { return 0 }
            return Int(
                try database.execute("SELECT max(version) FROM airloc_collector").first?.first.flatMap { $0 } ?? "")
                ?? 0
        }
    }

    private func take() throws(DatabaseError) -> PostgresConnection {
        condition.lock()
        while idle.isEmpty && open >= size { condition.wait() }
        if let connection = idle.popLast() {
            condition.unlock()
            return connection
        }
        open += 1
        condition.unlock()
        do {
            let connection = try PostgresConnection(conninfo: conninfo, password: password, connectTimeout: 5)
            try connection.execute(
                "SELECT set_config('statement_timeout', $1, false), "
                    + "set_config('default_transaction_read_only', $2, false), set_config('TimeZone', 'UTC', false)",
                [String(Self.statementTimeout * 1000), writable ? "off" : "on"])
            return connection
        } catch {
            condition.lock()
            open -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func give(_ connection: PostgresConnection) {
        condition.lock()
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }

    private func discard(_ connection: PostgresConnection) {
        connection.close()
        condition.lock()
        open -= 1
        condition.signal()
        condition.unlock()
    }
}
