import FleetWire
import Foundation
import Platform

/// What each upload has forwarded (docs/uploads.md): a cursor per upload and kind of row,
/// moved only when the server accepted the rows up to it, so that a restart, or a week
/// offline, sends every later row once, oldest first.
///
/// Contract: a cursor is the highest id of its kind the server accepted; rows above it
/// are the backlog. Advancing is one transaction with the upload's state (rows sent or
/// skipped, the last success), so a power cut never records a send that did not happen;
/// a batch in flight at a power cut is sent again (at most that batch).
extension Logbook {
    /// Per upload, what `log status` shows.
    public struct UploadStatus: JSONInline, Sendable, Equatable {
        /// Rows after the cursor, waiting.
        public var backlog: Int
        /// Rows the server took.
        public var sent: Int
        /// Rows passed over (refused for themselves, or too old).
        public var skipped: Int
        /// The last error, if any since the last success.
        public var lastError: String?
        /// When it happened.
        public var lastErrorAt: String?
        /// When the server last took rows.
        public var lastSuccessAt: String?
    }

    /// The upload's cursor for `kind` (0: nothing sent yet).
    public func uploadCursor(_ name: String, kind: RowKind) throws(LogbookError) -> Int64 {
        try with { c throws(SQLiteError) in try Self.cursor(c, name, kind) }
    }

    static func cursor(_ c: LogbookConnection, _ name: String, _ kind: RowKind) throws(SQLiteError) -> Int64 {
        try c.integer("SELECT last_id FROM upload WHERE name = ? AND kind = ?", [.text(name), .text(kind.rawValue)])
            ?? 0
    }

    /// Moves the cursor of `kind` to `id` (never back) and counts `sent` and `skipped`
    /// rows, in one transaction.
    public func advanceUpload(_ name: String, kind: RowKind, to id: Int64, sent: Int, skipped: Int, at time: Date)
        throws(LogbookError)
    {
        try with { c throws(SQLiteError) in
            try c.database.transaction { () throws(SQLiteError) in
                try c.run(
                    """
                    INSERT INTO upload (name, kind, last_id) VALUES (?, ?, ?)
                    ON CONFLICT (name, kind) DO UPDATE SET last_id = max(last_id, excluded.last_id)
                    """, [.text(name), .text(kind.rawValue), .integer(id)])
                try c.run(
                    """
                    INSERT INTO upload_state (name, last_success_at, sent, skipped) VALUES (?, ?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET last_success_at = excluded.last_success_at,
                        sent = sent + excluded.sent, skipped = skipped + excluded.skipped,
                        last_error = CASE WHEN excluded.sent > 0 THEN NULL ELSE last_error END
                    """, [.text(name), .text(LogFields.time(time)), .integer(Int64(sent)), .integer(Int64(skipped))])
            }
        }
    }

    /// Keeps the upload's last error (nil: none now).
    public func recordUploadError(_ name: String, _ message: String, at time: Date) throws(LogbookError) {
        try with { c throws(SQLiteError) in
            try c.run(
                """
                INSERT INTO upload_state (name, last_error, last_error_at) VALUES (?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET last_error = excluded.last_error,
                    last_error_at = excluded.last_error_at
                """, [.text(name), .text(message), .text(LogFields.time(time))])
        }
    }

    /// The rows of `kind` above `after`, oldest first, at most `limit`; track rows only
    /// up to the first whose time may still change (GPS time not yet judged).
    public func uploadRows(kind: RowKind, after: Int64, limit: Int) throws(LogbookError) -> [OutboxRow] {
        try with { c throws(SQLiteError) in
            var rows: [OutboxRow] = []
            switch kind {
            case .track:
                let query = try c.statement(
                    "\(LogbookRows.trackSelect) WHERE id > ? AND \(LogbookIDs.settledTrack) ORDER BY id LIMIT ?")
                try query.bind([.integer(after), .integer(Int64(limit))])
                while try query.step() { rows.append(.track(LogbookRows.track(query))) }
            case .sensor:
                let query = try c.statement("\(LogbookRows.sensorSelect) WHERE id > ? ORDER BY id LIMIT ?")
                try query.bind([.integer(after), .integer(Int64(limit))])
                while try query.step() { rows.append(.sensor(LogbookRows.sensor(query))) }
            case .air:
                let query = try c.statement("\(LogbookRows.airSelect) WHERE id > ? ORDER BY id LIMIT ?")
                try query.bind([.integer(after), .integer(Int64(limit))])
                while try query.step() { rows.append(.air(LogbookRows.air(query))) }
            }
            return rows
        }
    }

    /// The newest air row whose hour is at or before `time` (the model's air at a position).
    public func air(before time: Date) throws(LogbookError) -> AirRecord? {
        try with { c throws(SQLiteError) in
            let query = try c.statement(
                "\(LogbookRows.airSelect) WHERE hour_s <= ? AND source <> 'pending' ORDER BY hour_s DESC, id DESC LIMIT 1"
            )
            try query.bind([.integer(Int64(time.timeIntervalSince1970.rounded(.down)))])
            guard try query.step() else { return nil }
            let record = LogbookRows.air(query)
            _ = try? query.step()
            return record
        }
    }

    /// The newest particulate row at most `window` before `time`.
    public func measured(before time: Date, window: TimeInterval) throws(LogbookError) -> SensorRecord? {
        try with { c throws(SQLiteError) in
            let query = try c.statement(
                "\(LogbookRows.sensorSelect) WHERE t_ms <= ? AND t_ms >= ? AND pm2_5 IS NOT NULL "
                    + "ORDER BY t_ms DESC, id DESC LIMIT 1")
            try query.bind([.integer(time.milliseconds), .integer(time.addingTimeInterval(-window).milliseconds)])
            guard try query.step() else { return nil }
            let record = LogbookRows.sensor(query)
            _ = try? query.step()
            return record
        }
    }

    /// What `log status` shows of the upload `name` taking `kinds`.
    public func uploadStatus(_ name: String, kinds: [RowKind]) throws(LogbookError) -> UploadStatus {
        try with { c throws(SQLiteError) in
            var backlog = 0
            for kind in kinds {
                let cursor = try Self.cursor(c, name, kind)
                backlog += Int(
                    try c.integer("SELECT count(*) FROM \(kind.rawValue) WHERE id > ?", [.integer(cursor)]) ?? 0)
            }
            let query = try c.statement(
                "SELECT sent, skipped, last_error, last_error_at, last_success_at FROM upload_state WHERE name = ?")
            try query.bind([.text(name)])
            var status = UploadStatus(backlog: backlog, sent: 0, skipped: 0)
            if try query.step() {
                status.sent = Int(query.int(0) ?? 0)
                status.skipped = Int(query.int(1) ?? 0)
                status.lastError = query.text(2)
                status.lastErrorAt = query.text(3)
                status.lastSuccessAt = query.text(4)
                _ = try? query.step()
            }
            return status
        }
    }
}
