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
public final class Logbook: @unchecked Sendable {
    public let url: URL
    let database: SQLiteDatabase
    /// True when rows are to be published (an MQTT broker is configured): new and
    /// back-filled rows are then marked unsent (the outbox). Fixed at opening, so that
    /// every connection to the file agrees for its whole life.
    public let outbox: Bool
    /// True when a collector acknowledges what it stored (`[mqtt] end-to-end =
    /// collector`): rows are then also born, and made again on a change, unstored.
    public let collector: Bool
    /// Opened read-only from read-only media, with a write-ahead log that cannot be read
    /// there: what that means for the rows shown, for the reader to say.
    public private(set) var readOnlyWarning: String?
    private var statements: [String: SQLiteDatabase.Statement] = [:]

    /// Opens the logbook at `url`, creating it (and its directory) unless `readOnly`;
    /// with `outbox`, rows written through it are born unsent, and with `collector` (which
    /// needs `outbox`) unstored too.
    public init(url: URL, readOnly: Bool = false, outbox: Bool = false, collector: Bool = false)
        throws(LogbookError)
    {
        self.url = url
        self.outbox = outbox
        self.collector = outbox && collector
        let path = url.path
        if !readOnly {
            do {
                try PrivateDirectory.ensure(url.deletingLastPathComponent())
            } catch {
                throw .file(path, error.description)
            }
            // Created 0600 before SQLite sees it: SQLite gives -wal and -shm the same mode.
            do { try PrivateFile.ensure(url) } catch { throw .file(path, error.reason) }
        } else if !FileManager.default.fileExists(atPath: path) {
            throw .missing(path)
        } else if (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0 {
            throw .empty(path)
        }
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
                try LogbookSchema.migrate(database, from: Int(version))
            } else if readOnly && version == 0 {
                throw LogbookError.empty(path)
            }
            let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
            if database.isImmutable && wal > 0 {
                readOnlyWarning =
                    "the logbook is on read-only media and its write-ahead log (\(path)-wal, \(wal / 1024) KiB) "
                    + "cannot be read there: rows written since its last checkpoint are not shown"
            }
        } catch let error as LogbookError {
            throw error
        } catch let error as SQLiteError {
            throw .database(path, error)
        } catch {
            throw .file(path, "\(error)")
        }
    }

    func statement(_ sql: String) throws(SQLiteError) -> SQLiteDatabase.Statement {
        if let cached = statements[sql] { return cached }
        let prepared = try database.prepare(sql)
        statements[sql] = prepared
        return prepared
    }

    func run(_ sql: String, _ values: [SQLiteValue?] = []) throws(LogbookError) {
        do { try statement(sql).run(values) } catch { throw .database(url.path, error) }
    }

    /// Starts a segment: at start, after a gap, or after gpsd came back.
    public func startSegment(at time: Date, bootID: String?, reason: String) throws(LogbookError) -> Int64 {
        try run(
            "INSERT INTO segment (started_ms, boot_id, reason) VALUES (?, ?, ?)",
            [.integer(time.milliseconds), .string(bootID), .text(reason)])
        return database.lastInsertedRow
    }

    /// Appends a position; `bootSeconds` (the monotonic clock) lets a later clock
    /// correction re-stamp it.
    @discardableResult
    public func append(_ point: TrackPoint, bootSeconds: Double? = nil) throws(LogbookError) -> Int64 {
        try run(
            """
            INSERT INTO track (t_ms, time_source, boot_s, lat, lon, alt, speed, course, accuracy, mode, satellites,
                               provider, segment, sent, stored)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .integer(point.time.milliseconds), .text(point.timeSource), .double(bootSeconds),
                .real(point.coordinate.latitude), .real(point.coordinate.longitude), .double(point.altitude),
                .double(point.speed), .double(point.course), .double(point.accuracy), .int(point.mode),
                .int(point.satellites), .text(point.provider), .integer(point.segment), .integer(outbox ? 0 : 1),
                .integer(collector ? 0 : 1),
            ])
        return database.lastInsertedRow
    }

    /// Appends an air reading (or a pending hour).
    @discardableResult
    public func append(_ record: AirRecord) throws(LogbookError) -> Int64 {
        try run(
            """
            INSERT INTO air (hour_s, logged_ms, lat, lon, sent_lat, sent_lon, place, us_aqi, category, dominant,
                             pm2_5, pm10, nitrogen_dioxide, sulphur_dioxide, ozone, carbon_monoxide, european_aqi,
                             pollen, source, reason, segment, sent, stored)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .integer(Int64(record.hour.timeIntervalSince1970)), .integer(record.loggedAt.milliseconds),
                .real(record.coordinate.latitude), .real(record.coordinate.longitude),
                .real(record.sentCoordinate.latitude), .real(record.sentCoordinate.longitude), .string(record.place),
            ] + Self.valueColumns(record.values) + [
                .text(record.source.rawValue), .string(record.reason), .integer(record.segment),
                .integer(outbox ? 0 : 1), .integer(collector ? 0 : 1),
            ])
        return database.lastInsertedRow
    }

    static func valueColumns(_ values: AirValues) -> [SQLiteValue?] {
        [.int(values.usAQI), .string(values.category), .string(values.dominantPollutant)]
            + AirValues.pollutantNames.map { .double(values.pollutants[$0]) }
            + [.int(values.europeanAQI), .string(values.pollen)]
    }

    /// True when a row for this hour and sent coordinate exists (of any source).
    public func hasAir(hour: Date, sent: Coordinate) throws(LogbookError) -> Bool {
        do {
            let query = try statement("SELECT 1 FROM air WHERE hour_s = ? AND sent_lat = ? AND sent_lon = ? LIMIT 1")
            try query.bind([
                .integer(Int64(hour.timeIntervalSince1970)), .real(sent.latitude), .real(sent.longitude),
            ])
            let found = try query.step()
            if found { _ = try? query.bind([]) }
            return found
        } catch { throw .database(url.path, error) }
    }

    /// Settles the pending rows of `hour` at `sent` with a reading fetched after all
    /// (live or cached); returns how many there were.
    @discardableResult
    public func settle(hour: Date, sent: Coordinate, values: AirValues, source: AirRecord.Source) throws(LogbookError)
        -> Int
    {
        try run(
            """
            UPDATE air SET us_aqi = ?, category = ?, dominant = ?, pm2_5 = ?, pm10 = ?, nitrogen_dioxide = ?,
                           sulphur_dioxide = ?, ozone = ?, carbon_monoxide = ?, european_aqi = ?, pollen = ?,
                           source = ?, reason = NULL, sent = CASE WHEN ? THEN 0 ELSE sent END,
                           stored = CASE WHEN ? THEN 0 ELSE stored END, revision = revision + 1
            WHERE hour_s = ? AND sent_lat = ? AND sent_lon = ? AND source = 'pending'
            """,
            Self.valueColumns(values) + [
                .text(source.rawValue), .integer(outbox ? 1 : 0), .integer(collector ? 1 : 0),
                .integer(Int64(hour.timeIntervalSince1970)),
                .real(sent.latitude), .real(sent.longitude),
            ])
        return database.changes
    }

    /// Caps the file at `pages` pages (tests: a full disk without filling one).
    func limitSize(pages: Int) throws(LogbookError) {
        do { _ = try database.integer("PRAGMA max_page_count = \(pages)") } catch { throw .database(url.path, error) }
    }

    /// Every pending air row, oldest first.
    public func pending() throws(LogbookError) -> [AirRecord] {
        do {
            let query = try statement("\(LogbookRows.airSelect) WHERE source = 'pending' ORDER BY hour_s, id")
            try query.bind([])
            var rows: [AirRecord] = []
            while try query.step() { rows.append(LogbookRows.air(query)) }
            return rows
        } catch { throw .database(url.path, error) }
    }

    /// Fills pending rows with what the service's history said, in one transaction.
    public func fill(_ answers: [(id: Int64, values: AirValues?, reason: String?)]) throws(LogbookError) {
        do {
            try database.transaction { () throws(SQLiteError) in
                let update = try statement(
                    """
                    UPDATE air SET us_aqi = ?, category = ?, dominant = ?, pm2_5 = ?, pm10 = ?, nitrogen_dioxide = ?,
                                   sulphur_dioxide = ?, ozone = ?, carbon_monoxide = ?, european_aqi = ?, pollen = ?,
                                   source = ?, reason = ?, sent = CASE WHEN ? THEN 0 ELSE sent END,
                                   stored = CASE WHEN ? THEN 0 ELSE stored END, revision = revision + 1
                    WHERE id = ? AND source = 'pending'
                    """)
                for answer in answers {
                    let source = answer.values == nil ? AirRecord.Source.unavailable : .backfill
                    try update.run(
                        Self.valueColumns(answer.values ?? AirValues()) + [
                            .text(source.rawValue), .string(answer.reason), .integer(outbox ? 1 : 0),
                            .integer(collector ? 1 : 0), .integer(answer.id),
                        ])
                }
            }
        } catch { throw .database(url.path, error) }
    }

    /// Re-stamps the positions this boot logged by its unconfirmed clock, once GPS time
    /// is trusted: a row logged `b` seconds of monotonic time before the moment of
    /// trust gets that moment's true time minus `b`. Returns how many rows changed.
    @discardableResult
    public func restamp(bootID: String, trustedTime: Date, atBootSeconds boot: Double) throws(LogbookError) -> Int {
        try run(
            """
            UPDATE track SET t_ms = ? - CAST(ROUND((? - boot_s) * 1000) AS INTEGER), time_source = 'gps',
                             sent = CASE WHEN ? THEN 0 ELSE sent END, stored = CASE WHEN ? THEN 0 ELSE stored END,
                             revision = revision + 1
            WHERE time_source = 'system' AND boot_s IS NOT NULL
              AND segment IN (SELECT id FROM segment WHERE boot_id = ?)
            """,
            [
                .integer(trustedTime.milliseconds), .real(boot), .integer(outbox ? 1 : 0), .integer(collector ? 1 : 0),
                .text(bootID),
            ])
        return database.changes
    }

    /// How many rows ``prune(before:)`` would remove.
    public func countBefore(_ cutoff: Date) throws(LogbookError) -> (track: Int, air: Int) {
        do {
            let track = try statement("SELECT count(*) FROM track WHERE t_ms < ?")
            try track.bind([.integer(cutoff.milliseconds)])
            let tracks = try track.step() ? Int(track.int(0) ?? 0) : 0
            _ = try? track.step()
            let air = try statement("SELECT count(*) FROM air WHERE hour_s < ?")
            try air.bind([.integer(Int64(cutoff.timeIntervalSince1970))])
            let airs = try air.step() ? Int(air.int(0) ?? 0) : 0
            _ = try? air.step()
            return (tracks, airs)
        } catch { throw .database(url.path, error) }
    }

    /// Removes rows older than `cutoff`; returns (track, air) rows removed.
    public func prune(before cutoff: Date) throws(LogbookError) -> (track: Int, air: Int) {
        do {
            return try database.transaction { () throws(SQLiteError) in
                try statement("DELETE FROM track WHERE t_ms < ?").run([.integer(cutoff.milliseconds)])
                let track = database.changes
                try statement("DELETE FROM air WHERE hour_s < ?").run([.integer(Int64(cutoff.timeIntervalSince1970))])
                let air = database.changes
                try statement(
                    "DELETE FROM segment WHERE id NOT IN (SELECT segment FROM track UNION SELECT segment FROM air)"
                )
                .run()
                return (track, air)
            }
        } catch { throw .database(url.path, error) }
    }

    /// A value kept beside the rows (the last error, the device id).
    public func meta(_ key: String) throws(LogbookError) -> String? {
        do {
            let query = try statement("SELECT value FROM meta WHERE key = ?")
            try query.bind([.text(key)])
            guard try query.step() else { return nil }
            let value = query.text(0)
            _ = try? query.step()
            return value
        } catch { throw .database(url.path, error) }
    }

    /// Keeps `message` as the last error with its time, in one transaction (both or
    /// neither: a status never shows an error without its time); nil clears both.
    public func recordError(_ message: String?, at time: Date) throws(LogbookError) {
        do {
            try database.transaction { () throws(SQLiteError) in
                let upsert = try statement(
                    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
                let delete = try statement("DELETE FROM meta WHERE key = ?")
                if let message {
                    try upsert.run([.text("last_error"), .text(message)])
                    try upsert.run([.text("last_error_at"), .text(LogFields.time(time))])
                } else {
                    try delete.run([.text("last_error")])
                    try delete.run([.text("last_error_at")])
                }
            }
        } catch { throw .database(url.path, error) }
    }

    public func setMeta(_ key: String, _ value: String?) throws(LogbookError) {
        if let value {
            try run(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [.text(key), .text(value)])
        } else {
            try run("DELETE FROM meta WHERE key = ?", [.text(key)])
        }
    }

    /// Runs `body` in one transaction (bulk imports, benchmarks; the logger commits row
    /// by row).
    public func bulk(_ body: () throws -> Void) throws {
        try database.execute("BEGIN IMMEDIATE")
        do {
            try body()
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    /// Moves the write-ahead log into the file (what SQLite does on its own every 1000 pages).
    public func checkpoint() throws(LogbookError) {
        do { try database.execute("PRAGMA wal_checkpoint(TRUNCATE)") } catch { throw .database(url.path, error) }
    }

    /// `PRAGMA integrity_check`: "ok", or what is damaged.
    public func integrityCheck() throws(LogbookError) -> [String] {
        do { return try database.texts("PRAGMA integrity_check") } catch { throw .database(url.path, error) }
    }
}

/// Why the logbook cannot be used.
public enum LogbookError: Error, Sendable, CustomStringConvertible {
    case missing(String)
    /// The file exists but holds no logbook (0 bytes, or no tables yet).
    case empty(String)
    case file(String, String)
    case database(String, SQLiteError)
    case newerSchema(String, Int)

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
