import CPostgres
import Foundation
import Platform

/// Why the database cannot be used now: facts, for the collector to say and act on.
public enum DatabaseError: Error, Sendable, CustomStringConvertible, Equatable {
    /// libpq is not installed, or too old.
    case library(String)
    /// No connection: the server is down, refuses us, or the connection string is wrong.
    case connect(String)
    /// A command failed; `state` is its SQLSTATE ("08006": the connection broke).
    case command(state: String, message: String)
    /// The database holds a collector schema newer than this program knows.
    case newerSchema(found: Int, known: Int)

    /// What failed, in words a person can act on.
    public var description: String {
        switch self {
        case .library(let reason): return reason
        case .connect(let reason): return "cannot connect to PostgreSQL: \(reason)"
        case .command(let state, let message): return "PostgreSQL said \(message) (SQLSTATE \(state))"
        case .newerSchema(let found, let known):
            return "the database holds collector schema \(found), newer than this airloc knows (\(known)): "
                + "upgrade airloc, or give it a database of its own"
        }
    }

    /// Settings that cannot work, however often they are tried: a wrong password, a role
    /// or database that does not exist, no entry in pg_hba.conf (libpq says these in words,
    /// before any SQLSTATE), or no privilege to create the collector's tables (42501),
    /// an authorization failure (class 28) or an unknown database (3D000).
    public var isConfiguration: Bool {
        switch self {
        case .connect(let reason):
            let text = reason.lowercased()
            return [
                "password authentication failed", "does not exist", "no pg_hba.conf entry", "authentication failed",
            ]
            .contains { text.contains($0) }
        case .command(let state, _): return state == "42501" || state.hasPrefix("28") || state == "3D000"
        case .newerSchema: return true
        case .library: return false
        }
    }

    /// A deadlock or a serialisation failure (SQLSTATE 40P01, 40001): the server gave up
    /// this transaction for another's; the same work tried again at once succeeds.
    public var isTransient: Bool {
        guard case .command(let state, _) = self else { return false }
        return state == "40P01" || state == "40001"
    }

    /// A fault of the data sent (a value out of range, a constraint, a key too large for
    /// its index), not of the server: retrying the same rows cannot help. SQLSTATE classes
    /// 22, 23 and 54 (program limit exceeded).
    public var isDataError: Bool {
        guard case .command(let state, _) = self else { return false }
        return state.hasPrefix("22") || state.hasPrefix("23") || state.hasPrefix("54")
    }
}

/// A connection to PostgreSQL: the only place airloc touches libpq.
///
/// Contract:
/// - One connection: commands from several threads take turns (libpq's connection is not
///   for two at once); every command is parameterised (`$1`), text in and text out, so no value is ever spliced into SQL.
/// - `connectTimeout` bounds the connection attempt; libpq's TCP keepalives (on by
///   default) notice a server that vanished. A broken connection makes every later
///   command fail with SQLSTATE class 08 (``isBroken``): the caller opens a new one.
package final class PostgresConnection: Sendable {
    /// libpq's connection; nil once closed. Under the mutex: one command at a time.
    private let handle: Lock<Handle?>

    /// libpq's connection pointer.
    // @unchecked: a C handle, used only under the mutex that holds it.
    private struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// Connects to `conninfo` (a libpq connection string or a postgresql:// URI), with
    /// `password` (read from a file by the caller; nil: libpq's own PGPASSFILE or none).
    package convenience init(conninfo: String, password: String?, connectTimeout: Int = 10) throws(DatabaseError) {
        try self.init(conninfo: conninfo, password: password, connectTimeout: connectTimeout, server: nil)
    }

    /// One server of a connection string's host list (nil: the list as libpq takes it).
    package struct Server: Sendable, Equatable, CustomStringConvertible {
        /// Its `host` (a name, an address or a socket directory), `hostaddr` and `port`.
        package var host: String?, hostaddr: String?, port: String?

        /// The server at `host` (or `hostaddr`) and `port`.
        package init(host: String? = nil, hostaddr: String? = nil, port: String? = nil) {
            (self.host, self.hostaddr, self.port) = (host, hostaddr, port)
        }

        /// "host:port", for messages.
        package var description: String { "\(host ?? hostaddr ?? "localhost"):\(port ?? "5432")" }
    }

    /// The servers `conninfo` names, in its order: one per entry of its `host` (or
    /// `hostaddr`) list, with the port of the same place (one port serves them all). Empty
    /// when it names one server or none (libpq's defaults), or cannot be read.
    package static func servers(in conninfo: String) -> [Server] {
        guard airloc_pq_load() == nil else { return [] }
        func list(_ keyword: String) -> [String] {
            var ok: Int32 = 0
            guard let value = airloc_pq_conninfo_value(conninfo, keyword, &ok) else { return [] }
            defer { free(value) }
            return String(cString: value).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let (hosts, addresses, ports) = (list("host"), list("hostaddr"), list("port"))
        let count = max(hosts.count, addresses.count)
        guard count > 1 else { return [] }
        func item(_ values: [String], _ index: Int) -> String? {
            let value = values.count == 1 ? values[0] : index < values.count ? values[index] : ""
            return value.isEmpty ? nil : value
        }
        return (0..<count).map { Server(host: item(hosts, $0), hostaddr: item(addresses, $0), port: item(ports, $0)) }
    }

    /// Connects to `server` of `conninfo`'s list (nil: as libpq picks from the whole list).
    package init(conninfo: String, password: String?, connectTimeout: Int = 10, server: Server?)
        throws(DatabaseError)
    {
        if let missing = airloc_pq_load() { throw .library(String(cString: missing)) }
        let connection =
            server.map { server in
                airloc_pq_connect_host(
                    conninfo, password, Int32(connectTimeout), server.host, server.hostaddr, server.port)
            } ?? airloc_pq_connect(conninfo, password, Int32(connectTimeout))
        guard airloc_pq_ok(connection) == 1 else {
            let reason = Self.oneLine(String(cString: airloc_pq_error_message(connection)))
            if connection != nil { airloc_pq_finish(connection) }
            throw .connect(reason)
        }
        handle = Lock(connection.map(Handle.init))
    }

    deinit { close() }

    package func close() {
        handle.withLock { handle in
            if let handle { airloc_pq_finish(handle.pointer) }
            handle = nil
        }
    }

    /// The server's version as libpq reports it (150018 for 15.18).
    package var serverVersion: Int { handle.withLock { $0.map { Int(airloc_pq_server_version($0.pointer)) } ?? 0 } }

    /// Runs `command` with `parameters` ($1, $2, ...; nil is NULL) and returns its rows,
    /// each column as text or nil.
    @discardableResult
    package func execute(_ command: String, _ parameters: [String?] = []) throws(DatabaseError) -> [[String?]] {
        try withResult(command, parameters) { cells in
            var table: [[String?]] = []
            table.reserveCapacity(cells.rows)
            for row in 0..<cells.rows {
                table.append((0..<cells.columns).map { cells.string(row, $0) })
            }
            return table
        }
    }

    /// Runs `command` and hands `body` its result's cells as libpq holds them, valid only
    /// inside `body`: a large answer (a day of fixes) is read without a Swift string per cell.
    package func withResult<T>(
        _ command: String, _ parameters: [String?] = [], _ body: (PostgresCells) throws(DatabaseError) -> T
    ) throws(DatabaseError) -> T {
        let copies = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        let values = copies.map { UnsafePointer($0) }
        // The connection is held for the command alone: its result is libpq's own memory,
        // read after the next command may have begun.
        let result = try handle.withLock { handle throws(DatabaseError) -> OpaquePointer? in
            guard let handle else { throw .command(state: "08003", message: "the connection is closed") }
            return values.withUnsafeBufferPointer {
                airloc_pq_exec(handle.pointer, command, Int32(parameters.count), $0.baseAddress)
            }
        }
        defer { airloc_pq_clear(result) }
        guard airloc_pq_result_ok(result) == 1 else {
            var state = String(cString: airloc_pq_result_sqlstate(result))
            // No SQLSTATE: libpq lost the connection before the server answered.
            if state.isEmpty { state = "08006" }
            throw .command(state: state, message: Self.oneLine(String(cString: airloc_pq_result_error(result))))
        }
        return try body(
            PostgresCells(result: result, rows: Int(airloc_pq_rows(result)), columns: Int(airloc_pq_columns(result))))
    }

    /// Runs `body` inside BEGIN … COMMIT; any error rolls back and is thrown.
    package func transaction<T>(_ body: () throws(DatabaseError) -> T) throws(DatabaseError) -> T {
        try execute("BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
    }

    /// libpq's messages end in newlines and may span lines ("DETAIL: ..."): one line.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }
}

extension DatabaseError {
    /// The connection is gone (SQLSTATE class 08, or 57P01: the server shuts down):
    /// open a new one.
    package var isBroken: Bool {
        switch self {
        case .connect: return true
        case .command(let state, _): return state.hasPrefix("08") || state.hasPrefix("57P")
        default: return false
        }
    }
}

/// A command's result as libpq holds it: text cells by row and column, nil for NULL.
package struct PostgresCells {
    let result: OpaquePointer?
    /// Rows.
    package let rows: Int
    /// Columns.
    package let columns: Int

    /// The cell's text, NUL-terminated (nil: NULL), valid while the result is.
    package func text(_ row: Int, _ column: Int) -> UnsafePointer<CChar>? {
        airloc_pq_value(result, Int32(row), Int32(column))
    }

    /// The cell as a string (nil: NULL).
    package func string(_ row: Int, _ column: Int) -> String? { text(row, column).map { String(cString: $0) } }
}
