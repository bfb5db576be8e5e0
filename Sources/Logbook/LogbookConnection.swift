import Foundation

/// The logbook's one SQLite connection and its prepared statements: what ``Logbook``
/// keeps behind its lock, so that whichever task holds the logbook, one statement runs at
/// a time on it.
///
/// Contract: used only inside ``Logbook/with(_:)`` (it is not Sendable: the lock is the
/// proof that no two tasks use it at once); statements are prepared once and reused.
final class LogbookConnection {
    let database: SQLiteDatabase
    private var statements: [String: SQLiteDatabase.Statement] = [:]

    init(database: SQLiteDatabase) { self.database = database }

    func statement(_ sql: String) throws(SQLiteError) -> SQLiteDatabase.Statement {
        if let cached = statements[sql] { return cached }
        let prepared = try database.prepare(sql)
        statements[sql] = prepared
        return prepared
    }

    func run(_ sql: String, _ values: [SQLiteValue?] = []) throws(SQLiteError) {
        try statement(sql).run(values)
    }

    /// The first column of the first row of `sql` with `values`, as an integer.
    func integer(_ sql: String, _ values: [SQLiteValue?] = []) throws(SQLiteError) -> Int64? {
        let query = try statement(sql)
        try query.bind(values)
        guard try query.step() else { return nil }
        let value = query.int(0)
        _ = try? query.step()
        return value
    }

    /// A value kept beside the rows (the last error, the device id).
    func meta(_ key: String) throws(SQLiteError) -> String? {
        let query = try statement("SELECT value FROM meta WHERE key = ?")
        try query.bind([.text(key)])
        guard try query.step() else { return nil }
        let value = query.text(0)
        _ = try? query.step()
        return value
    }

    func setMeta(_ key: String, _ value: String?) throws(SQLiteError) {
        if let value {
            try run(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [.text(key), .text(value)])
        } else {
            try run("DELETE FROM meta WHERE key = ?", [.text(key)])
        }
    }
}

extension Logbook {
    /// Plain statements on the connection, each under the lock (pragmas and checks; the
    /// tests look at the file's settings through it).
    struct Statements {
        let logbook: Logbook

        func integer(_ sql: String) throws(LogbookError) -> Int64? {
            try logbook.with { c throws(SQLiteError) in try c.database.integer(sql) }
        }

        func texts(_ sql: String) throws(LogbookError) -> [String] {
            try logbook.with { c throws(SQLiteError) in try c.database.texts(sql) }
        }

        func execute(_ sql: String) throws(LogbookError) {
            try logbook.with { c throws(SQLiteError) in try c.database.execute(sql) }
        }
    }

    var database: Statements { Statements(logbook: self) }
}
