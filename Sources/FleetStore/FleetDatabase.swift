import FleetWire
import Foundation
import Platform
import Settings

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
public final class FleetDatabase: Sendable {
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
    private struct Pool: Sendable {
        var idle: [PostgresConnection] = []
        var open = 0
    }
    private let pool = GuardedState(Pool())

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

    deinit { pool.withLock { $0.idle.forEach { $0.close() } } }

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
        let taken: PostgresConnection?? = pool.wait { [size] pool in
            if let connection = pool.idle.popLast() { return .some(connection) }
            guard pool.open < size else { return nil }
            // A place for a new connection: counted now, so no one else takes it.
            pool.open += 1
            return .some(nil)
        }
        if let connection = taken ?? nil { return connection }
        do {
            let connection = try PostgresConnection(conninfo: conninfo, password: password, connectTimeout: 5)
            try connection.execute(
                "SELECT set_config('statement_timeout', $1, false), "
                    + "set_config('default_transaction_read_only', $2, false), set_config('TimeZone', 'UTC', false)",
                [String(Self.statementTimeout * 1000), writable ? "off" : "on"])
            return connection
        } catch {
            pool.change { $0.open -= 1 }
            throw error
        }
    }

    private func give(_ connection: PostgresConnection) {
        pool.change { $0.idle.append(connection) }
    }

    private func discard(_ connection: PostgresConnection) {
        connection.close()
        pool.change { $0.open -= 1 }
    }
}
