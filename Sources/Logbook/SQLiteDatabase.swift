import CSQLite
import Foundation

/// Why a database operation failed, in words a person can act on.
///
/// Contract: `isFull` and `isReadOnly` single out the two conditions a field logger must
/// survive (a full SD card, a file system remounted read-only): the logger reports them
/// and keeps running, and the next write tries again.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// SQLite's extended result code.
    public var code: Int32
    /// SQLite's message.
    public var message: String

    /// The disk is full.
    public var isFull: Bool { code & 0xFF == SQLITE_FULL }
    /// The file or its file system cannot be written.
    public var isReadOnly: Bool { code & 0xFF == SQLITE_READONLY || code & 0xFF == SQLITE_CANTOPEN }
    /// Another connection holds the lock.
    public var isBusy: Bool { code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED }

    /// What failed, in words a person can act on.
    public var description: String {
        if isFull { return "the disk is full (\(message))" }
        return message
    }
}

/// A SQLite database file: the only place airloc touches libsqlite3.
///
/// Contract: one connection, used from one task at a time (the logbook's writer or a
/// reader); statements are prepared once and reused; every error comes back as a
/// ``SQLiteError`` with SQLite's own message. Text is UTF-8; integers 64-bit; reals IEEE.
package final class SQLiteDatabase {
    private var handle: OpaquePointer?
    package let path: String

    /// Opens (or, with `create`, creates) the file. A busy database is waited for up to
    /// `busyTimeout` (a reader while the logger commits).
    ///
    /// `readOnly` opens it as SQLite's `mode=ro`; where even that cannot work (a WAL file
    /// on read-only media, whose shared-memory index cannot be made), as `immutable=1`,
    /// which reads the file as it is without locks: ``isImmutable`` then says so, and
    /// what only the write-ahead log holds is not seen.
    package init(path: String, create: Bool = true, readOnly: Bool = false, busyTimeout: Int32 = 5000)
        throws(SQLiteError)
    {
        self.path = path
        if readOnly {
            do {
                handle = try Self.open(
                    Self.uri(path, "mode=ro"), shown: path, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
                    busyTimeout: busyTimeout)
                // SQLite opens lazily: the first read finds out whether the WAL index works.
                _ = try integer("PRAGMA user_version")
            } catch  where error.code & 0xFF == SQLITE_CANTOPEN || error.code & 0xFF == SQLITE_READONLY {
                sqlite3_close_v2(handle)
                handle = try Self.open(
                    Self.uri(path, "immutable=1"), shown: path, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
                    busyTimeout: busyTimeout)
                isImmutable = true
            }
        } else {
            handle = try Self.open(
                path, shown: path, flags: SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0),
                busyTimeout: busyTimeout)
        }
    }

    /// True when the file was opened as immutable (read-only media).
    package private(set) var isImmutable = false

    /// Opens `name`, waiting up to `busyTimeout` ms for a lock from its first statement on
    /// (a reader's first read, while the logger commits, must wait, not fail as locked).
    private static func open(_ name: String, shown path: String, flags: Int32, busyTimeout: Int32) throws(SQLiteError)
        -> OpaquePointer
    {
        var db: OpaquePointer?
        let status = sqlite3_open_v2(name, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(db)
            throw SQLiteError(code: status, message: "\(path): \(message)")
        }
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeout)
        return db
    }

    /// A `file:` URI for `path` with one query parameter (`?`, `#` and `%` escaped).
    static func uri(_ path: String, _ parameter: String) -> String {
        var escaped = ""
        for character in path {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.append(character)
            }
        }
        return "file:\(escaped)?\(parameter)"
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs one or more statements that return nothing (schema, pragmas).
    package func execute(_ sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if status != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw SQLiteError(code: status, message: message)
        }
    }

    package func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status) }
        return Statement(handle: statement, database: self)
    }

    /// The first column of the first row of `sql` as an integer (pragmas, counts).
    package func integer(_ sql: String) throws(SQLiteError) -> Int64? {
        let statement = try prepare(sql)
        return try statement.step() ? statement.int(0) : nil
    }

    /// The first column of every row of `sql` as text.
    package func texts(_ sql: String) throws(SQLiteError) -> [String] {
        let statement = try prepare(sql)
        var rows: [String] = []
        while try statement.step() { rows.append(statement.text(0) ?? "") }
        return rows
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    package func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Resets every statement left part-way through its rows. A stepped statement holds its
    /// read transaction open, and in WAL mode that pins the reader to its snapshot: a
    /// long-lived reader (serve) would never see another process's commits, and the
    /// writer's checkpoints could not get past it.
    package func finishReads() {
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { sqlite3_reset(current) }
            statement = sqlite3_next_stmt(handle, current)
        }
    }

    package var changes: Int { Int(sqlite3_changes(handle)) }
    package var lastInsertedRow: Int64 { sqlite3_last_insert_rowid(handle) }

    func error(_ status: Int32) -> SQLiteError {
        SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
    }

    /// A prepared statement: bind by position (1-based), step, read columns (0-based).
    package final class Statement {
        private let handle: OpaquePointer
        private let database: SQLiteDatabase

        init(handle: OpaquePointer, database: SQLiteDatabase) {
            self.handle = handle
            self.database = database
        }

        deinit { sqlite3_finalize(handle) }

        /// Binds `values` in order after clearing earlier bindings and resetting.
        @discardableResult
        package func bind(_ values: [SQLiteValue?]) throws(SQLiteError) -> Statement {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
            for (offset, value) in values.enumerated() {
                let index = Int32(offset + 1)
                let status: Int32
                switch value {
                case nil: status = sqlite3_bind_null(handle, index)
                case .integer(let v)?: status = sqlite3_bind_int64(handle, index, v)
                case .real(let v)?:
                    status = v.isFinite ? sqlite3_bind_double(handle, index, v) : sqlite3_bind_null(handle, index)
                case .text(let v)?:
                    // SQLITE_TRANSIENT: SQLite copies the bytes before this call returns.
                    status = sqlite3_bind_text(
                        handle, index, v, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                }
                if status != SQLITE_OK { throw database.error(status) }
            }
            return self
        }

        /// Advances: true while there is a row to read.
        package func step() throws(SQLiteError) -> Bool {
            let status = sqlite3_step(handle)
            switch status {
            case SQLITE_ROW: return true
            case SQLITE_DONE:
                sqlite3_reset(handle)
                return false
            default:
                let error = database.error(status)
                sqlite3_reset(handle)
                throw error
            }
        }

        /// Runs a statement that returns no rows.
        package func run(_ values: [SQLiteValue?] = []) throws(SQLiteError) {
            try bind(values)
            while try step() {}
        }

        package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
        package func int(_ column: Int32) -> Int64? { isNull(column) ? nil : sqlite3_column_int64(handle, column) }
        package func real(_ column: Int32) -> Double? { isNull(column) ? nil : sqlite3_column_double(handle, column) }
        package func text(_ column: Int32) -> String? {
            guard let bytes = sqlite3_column_text(handle, column) else { return nil }
            return String(cString: bytes)
        }
    }
}

/// A value bound into a statement.
package enum SQLiteValue: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
}

extension SQLiteValue {
    package static func int(_ value: Int?) -> SQLiteValue? { value.map { .integer(Int64($0)) } }
    package static func double(_ value: Double?) -> SQLiteValue? { value.map { .real($0) } }
    package static func string(_ value: String?) -> SQLiteValue? { value.map { .text($0) } }
}
