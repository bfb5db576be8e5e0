import Foundation
import Geo
import Platform

/// The field log: where the device was and what the air was like there, in one SQLite
/// file (docs/logbook.md).
///
/// Contract:
/// - Durable: WAL with `synchronous=FULL`, so a committed row survives a power cut; each
///   row is its own transaction, so a crash loses at most the row being written and the
///   file always passes `PRAGMA integrity_check`.
/// - Private: the file (and SQLite's `-wal`/`-shm` beside it, which take its mode) is
///   0600 in a 0700 directory; it holds exact positions.
/// - One writer (the logger); readers (`log status`, `log export`) may open it at the
///   same time and see every committed row.
/// - The schema version is in `PRAGMA user_version`; opening migrates an older file
///   forward and refuses a newer one (written by a newer airloc) instead of damaging it.
/// - Sendable because its one connection is behind a lock: any task may use it, one
///   statement at a time. Cursors (``trackPoints(in:)``) read through a connection of
///   their own.
public final class Logbook: Sendable {
    /// The SQLite file.
    public let url: URL
    /// True when rows are to be published (an MQTT broker is configured): new and
    /// back-filled rows are then marked unsent (the outbox). Fixed at opening, so that
    /// every connection to the file agrees for its whole life.
    public let outbox: Bool
    /// True when a collector acknowledges what it stored (`[mqtt] end-to-end =
    /// collector`): rows are then also born, and made again on a change, unstored.
    public let collector: Bool
    /// Opened read-only from read-only media, with a write-ahead log that cannot be read
    /// there: what that means for the rows shown, for the reader to say.
    public let readOnlyWarning: String?
    /// This file's incarnation: random, made with the file and never changed, so that a
    /// row's identity (`t42` of this incarnation) is unique for the device's lifetime even
    /// when the logbook is deleted and made again. Empty for a file made before
    /// incarnations existed (its rows keep the identity they were stored under).
    public let incarnation: String
    /// Told of every row written or changed through this logbook (nil when read-only): the
    /// readers in the same program that wait on the logger's new rows listen to it.
    public let changes: LogbookChanges?
    private let connection: Lock<LogbookConnection>

    /// Opens the logbook at `url`, creating it (and its directory) unless `readOnly`;
    /// with `outbox`, rows written through it are born unsent, and with `collector` (which
    /// needs `outbox`) unstored too.
    public init(url: URL, readOnly: Bool = false, outbox: Bool = false, collector: Bool = false)
        throws(LogbookError)
    {
        self.url = url
        self.outbox = outbox
        self.collector = outbox && collector
        self.changes = readOnly ? nil : LogbookChanges()
        let path = url.path
        if !readOnly {
            do {
                try PrivateDirectory.ensure(url.deletingLastPathComponent())
            } catch {
                throw .file(path, error.description)
            }
            // Created 0600 before SQLite sees it: SQLite gives -wal and -shm the same mode.
            // Never opened here when it exists: closing any descriptor of the file would
            // drop this process's SQLite locks on it (sqlite.org "How To Corrupt" 2.2).
            do { try PrivateFile.ensure(url) } catch { throw .file(path, error.reason) }
        } else if !FileManager.default.fileExists(atPath: path) {
            throw .missing(path)
        } else if (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0 {
            throw .empty(path)
        }
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(path: path, create: !readOnly, readOnly: readOnly)
            let version = try database.integer("PRAGMA user_version") ?? 0
            if !readOnly {
                // Small pages for a new file: each commit writes its changed pages to the
                // WAL, and a track row changes two (table and time index) — 1 KiB pages
                // instead of 4 KiB cut what every row costs an SD card by about four.
                if version == 0 { try database.execute("PRAGMA page_size = 1024") }
                try database.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
            }
            if version > Int64(LogbookSchema.version) {
                throw LogbookError.newerSchema(path, Int(version))
            }
            if !readOnly && version < Int64(LogbookSchema.version) {
                try LogbookSchema.migrate(database, from: Int(version)) { () throws(SQLiteError) in
                    guard version == 0 else { return }
                    try database.execute(
                        "INSERT OR IGNORE INTO meta (key, value) VALUES ('incarnation', '\(Self.newIncarnation())')")
                }
            } else if readOnly && version == 0 {
                throw LogbookError.empty(path)
            }
            incarnation = try database.texts("SELECT value FROM meta WHERE key = 'incarnation'").first ?? ""
            let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
            readOnlyWarning =
                database.isImmutable && wal > 0
                ? "the logbook is on read-only media and its write-ahead log (\(path)-wal, \(wal / 1024) KiB) "
                    + "cannot be read there: rows written since its last checkpoint are not shown" : nil
        } catch let error as LogbookError {
            throw error
        } catch let error as SQLiteError {
            throw .database(path, error)
        } catch {
            throw .file(path, "\(error)")
        }
        connection = Lock(LogbookConnection(database: database))
    }

    /// 12 random hex digits.
    static func newIncarnation() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<6).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Runs `body` on the connection, alone: the one way in to it.
    func with<T: Sendable>(_ body: (LogbookConnection) throws(SQLiteError) -> T) throws(LogbookError) -> T {
        do {
            return try connection.withLock { (connection: inout LogbookConnection) throws(SQLiteError) -> T in
                defer { connection.database.finishReads() }
                return try body(connection)
            }
        } catch { throw .database(url.path, error) }
    }

    /// ``with(_:)`` for a write: the readers waiting on ``changes`` hear of it.
    func writing<T: Sendable>(_ body: (LogbookConnection) throws(SQLiteError) -> T) throws(LogbookError) -> T {
        let result = try with(body)
        changes?.announce()
        return result
    }

    /// A statement on a connection of its own, for a cursor that is read one row at a time
    /// while other statements run on the logbook's. A cursor reads its pages once, in order:
    /// its connection's page cache is kept small (256 KiB, not SQLite's 2 MB), so that many
    /// cursors at once (a web server's clients) cost little memory.
    func cursor(_ sql: String, _ values: [SQLiteValue?]) throws(LogbookError) -> SQLiteDatabase.Statement {
        do {
            let connection = try SQLiteDatabase(path: url.path, create: false, readOnly: true)
            try connection.execute("PRAGMA cache_size = -256")
            let statement = try connection.prepare(sql)
            try statement.bind(values)
            return statement
        } catch { throw .database(url.path, error) }
    }

    /// Starts a segment: at start, after a gap, or after gpsd came back.
    public func startSegment(at time: Date, bootID: String?, reason: String) throws(LogbookError) -> Int64 {
        try with { c throws(SQLiteError) in
            try c.run(
                "INSERT INTO segment (started_ms, boot_id, reason) VALUES (?, ?, ?)",
                [.integer(time.milliseconds), .string(bootID), .text(reason)])
            return c.database.lastInsertedRow
        }
    }

    /// Appends a position; `bootSeconds` (the monotonic clock) lets a later clock
    /// correction re-stamp it.
    @discardableResult
    public func append(_ point: TrackPoint, bootSeconds: Double? = nil) throws(LogbookError) -> Int64 {
        try writing { c throws(SQLiteError) in
            try c.run(
                """
                INSERT INTO track (id, t_ms, time_source, boot_s, lat, lon, alt, speed, course, accuracy, mode,
                                   satellites, provider, segment, sent, stored)
                VALUES (\(LogbookIDs.next(.track)), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .integer(point.time.milliseconds), .text(point.timeSource), .double(bootSeconds),
                    .real(point.coordinate.latitude), .real(point.coordinate.longitude), .double(point.altitude),
                    .double(point.speed), .double(point.course), .double(point.accuracy), .int(point.mode),
                    .int(point.satellites), .text(point.provider), .integer(point.segment), .integer(outbox ? 0 : 1),
                    .integer(collector ? 0 : 1),
                ])
            return c.database.lastInsertedRow
        }
    }

    /// Caps the file at `pages` pages (tests: a full disk without filling one).
    func limitSize(pages: Int) throws(LogbookError) {
        try with { c throws(SQLiteError) in _ = try c.database.integer("PRAGMA max_page_count = \(pages)") }
    }

    /// A value kept beside the rows (the last error, the device id).
    public func meta(_ key: String) throws(LogbookError) -> String? {
        try with { c throws(SQLiteError) in try c.meta(key) }
    }

    /// Keeps `message` as the last error with its time, in one transaction (both or
    /// neither: a status never shows an error without its time); nil clears both.
    ///
    /// When the logbook cannot take it (a full disk), it goes to ``LastErrorNote`` on the
    /// runtime tmpfs instead, so `log status` still shows it; the note goes once the
    /// logbook takes an error (or its clearing) again.
    public func recordError(_ message: String?, at time: Date) throws(LogbookError) {
        let note = LastErrorNote(logbook: url)
        do {
            try with { c throws(SQLiteError) in
                try c.database.transaction { () throws(SQLiteError) in
                    try c.setMeta("last_error", message)
                    try c.setMeta("last_error_at", message == nil ? nil : LogFields.time(time))
                }
            }
        } catch {
            note.write(message, at: time)
            throw error
        }
        note.write(nil, at: time)
    }

    /// Keeps `value` under `key` (nil: removes it).
    public func setMeta(_ key: String, _ value: String?) throws(LogbookError) {
        try with { c throws(SQLiteError) in try c.setMeta(key, value) }
    }

    /// Runs `body` in one transaction (bulk imports, benchmarks; the logger commits row
    /// by row). `body` may use this logbook: the transaction is this connection's.
    public func bulk(_ body: () throws -> Void) throws {
        try with { c throws(SQLiteError) in try c.database.execute("BEGIN IMMEDIATE") }
        do {
            try body()
            try with { c throws(SQLiteError) in try c.database.execute("COMMIT") }
        } catch {
            _ = try? with { c throws(SQLiteError) in try c.database.execute("ROLLBACK") }
            throw error
        }
    }

    /// Moves the write-ahead log into the file (what SQLite does on its own every 1000 pages).
    public func checkpoint() throws(LogbookError) {
        try with { c throws(SQLiteError) in try c.database.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// `PRAGMA integrity_check`: "ok", or what is damaged.
    public func integrityCheck() throws(LogbookError) -> [String] {
        try with { c throws(SQLiteError) in try c.database.texts("PRAGMA integrity_check") }
    }
}

/// Why the logbook cannot be used.
public enum LogbookError: Error, Sendable, Equatable, CustomStringConvertible {
    case missing(String)
    /// The file exists but holds no logbook (0 bytes, or no tables yet).
    case empty(String)
    case file(String, String)
    case database(String, SQLiteError)
    case newerSchema(String, Int)

    /// What is wrong, naming the file.
    public var description: String {
        switch self {
        case .missing(let path): return "no logbook at \(path)"
        case .empty(let path): return "the logbook \(path) is empty: nothing has been logged in it yet"
        case .file(let path, let reason): return "cannot open the logbook \(path): \(reason)"
        case .database(let path, let error): return "logbook \(path): \(error)"
        case .newerSchema(let path, let version):
            return "the logbook \(path) has schema version \(version), newer than this airloc understands "
                + "(\(LogbookSchema.version)); update airloc"
        }
    }

    /// A full disk or read-only file system: the logger keeps running and retries.
    public var isStorageProblem: Bool {
        if case .database(_, let error) = self { return error.isFull || error.isReadOnly }
        return false
    }
}
