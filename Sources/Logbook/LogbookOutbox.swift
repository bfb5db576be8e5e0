import Foundation

/// The rows still to be published to an MQTT broker (`sent = 0`), oldest first, and
/// marking them sent once the broker acknowledged them.
///
/// Contract: a row is unsent from the moment it is written (or back-filled: its content
/// changed) while ``Logbook/outbox`` is on, until ``markSent(_:)``; a restart finds every
/// row the broker never acknowledged. Row keys are the export ids (`t42`, `a7`).
extension Logbook {
    public enum OutboxRow: Sendable {
        case track(TrackPoint)
        case air(AirRecord)

        public var key: String {
            switch self {
            case .track(let point): return "t\(point.id)"
            case .air(let record): return "a\(record.id)"
            }
        }

        var time: Date {
            switch self {
            case .track(let point): return point.time
            case .air(let record): return record.hour
            }
        }

        /// The row as its `airloc.log/1` line (the NDJSON export's).
        public var json: String { json(position: true) }

        /// The line; without `position`, an air row's latitude and longitude are null.
        public func json(position: Bool) -> String {
            switch self {
            case .track(let point): return LogFields.trackJSON(point)
            case .air(let record): return LogFields.airJSON(record, position: position)
            }
        }
    }

    /// Up to `limit` unsent rows with ids above the given ones: each table's in id order,
    /// the two merged by time.
    ///
    /// Contract: of each table, the rows returned are the first unsent ones after its
    /// cursor, with none left out, so a caller that moves each cursor to the highest id
    /// it was handed never skips a row. Time and id order differ after GPS time re-stamps
    /// a boot's rows; sorting the two tables' rows by time, as this did before, could
    /// hand out row 7 before row 6 and move the cursor past 6.
    public func unsent(afterTrack track: Int64, afterAir air: Int64, limit: Int) throws(LogbookError) -> [OutboxRow] {
        do {
            var points: [OutboxRow] = []
            let trackRows = try statement("\(LogbookRows.trackSelect) WHERE sent = 0 AND id > ? ORDER BY id LIMIT ?")
            try trackRows.bind([.integer(track), .integer(Int64(limit))])
            while try trackRows.step() { points.append(.track(LogbookRows.track(trackRows))) }
            var records: [OutboxRow] = []
            let airRows = try statement("\(LogbookRows.airSelect) WHERE sent = 0 AND id > ? ORDER BY id LIMIT ?")
            try airRows.bind([.integer(air), .integer(Int64(limit))])
            while try airRows.step() { records.append(.air(LogbookRows.air(airRows))) }
            var rows: [OutboxRow] = []
            var (p, r) = (0, 0)
            while rows.count < limit, p < points.count || r < records.count {
                if r == records.count || (p < points.count && points[p].time <= records[r].time) {
                    rows.append(points[p])
                    p += 1
                } else {
                    rows.append(records[r])
                    r += 1
                }
            }
            return rows
        } catch { throw .database(url.path, error) }
    }

    /// Marks the rows with these keys (`t42`, `a7`) sent, in one transaction.
    public func markSent(_ keys: [String]) throws(LogbookError) {
        guard !keys.isEmpty else { return }
        do {
            try database.transaction { () throws(SQLiteError) in
                let track = try statement("UPDATE track SET sent = 1 WHERE id = ?")
                let air = try statement("UPDATE air SET sent = 1 WHERE id = ?")
                for key in keys {
                    guard let id = Int64(key.dropFirst()) else { continue }
                    try (key.hasPrefix("t") ? track : air).run([.integer(id)])
                }
            }
        } catch { throw .database(url.path, error) }
    }

    /// How many rows wait for the broker.
    public func unsentCount() throws(LogbookError) -> Int {
        do {
            let track = try database.integer("SELECT count(*) FROM track WHERE sent = 0") ?? 0
            let air = try database.integer("SELECT count(*) FROM air WHERE sent = 0") ?? 0
            return Int(track + air)
        } catch { throw .database(url.path, error) }
    }
}
