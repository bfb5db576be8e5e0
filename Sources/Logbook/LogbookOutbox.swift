import FleetWire
import Foundation

/// The rows still to be published to an MQTT broker (`sent = 0`), oldest first, and
/// marking them sent once the broker acknowledged them.
///
/// Contract: a row is unsent from the moment it is written while ``Logbook/outbox`` is
/// on, and again whenever its content changes (back-filled, settled after pending,
/// re-stamped by GPS time: its revision goes up), until ``markSent(_:)`` for that
/// revision; a restart finds every row the broker never acknowledged as it is now. Row
/// keys are the export ids (`t42`, `a7`).
extension Logbook {
    /// An unsent row and the revision of its content that is to be published.
    public struct OutboxEntry: Sendable {
        /// The row as it is now.
        public var row: OutboxRow
        /// Its content's revision, which the acknowledgement must match.
        public var revision: Int64
        /// Its id (`t42`).
        public var key: String { row.key }
    }

    /// A row of any kind.
    public enum OutboxRow: Sendable {
        case track(TrackPoint)
        case air(AirRecord)
        case sensor(SensorRecord)

        /// Its id (`t42`, `a7`, `s3`).
        public var key: String {
            switch self {
            case .track(let point): return "t\(point.id)"
            case .air(let record): return "a\(record.id)"
            case .sensor(let reading): return "s\(reading.id)"
            }
        }

        var time: Date {
            switch self {
            case .track(let point): return point.time
            case .air(let record): return record.hour
            case .sensor(let reading): return reading.time
            }
        }

        /// The row as its `airloc.log/1` line (the NDJSON export's).
        public var json: String { json(position: true) }

        /// The line; without `position`, an air row's latitude and longitude are null.
        public func json(position: Bool) -> String {
            switch self {
            case .track(let point): return LogFields.trackJSON(point)
            case .air(let record): return LogFields.airJSON(record, position: position)
            case .sensor(let reading): return LogFields.sensorJSON(reading, position: position)
            }
        }
    }

    /// Up to `limit` unsent rows, leaving out those whose current revision is already
    /// `published` (in flight, keyed `t42`): each table's in id order, the two merged by
    /// time.
    ///
    /// Contract: no cursor, so no row is skipped: a row whose content changed after it
    /// was handed out (its revision is not the one in flight) is handed out again.
    public func unsent(excluding published: [String: Int64], limit: Int) throws(LogbookError) -> [OutboxEntry] {
        try with { c throws(SQLiteError) in
            // In-flight rows are unsent too: read past them.
            let reading = Int64(limit + published.count)
            func rows(_ select: String, _ revisionColumn: Int32, _ make: (SQLiteDatabase.Statement) -> OutboxRow)
                throws(SQLiteError) -> [OutboxEntry]
            {
                let query = try c.statement(select)
                try query.bind([.integer(reading)])
                var found: [OutboxEntry] = []
                while try query.step() {
                    let entry = OutboxEntry(row: make(query), revision: query.int(revisionColumn) ?? 0)
                    if published[entry.key] != entry.revision { found.append(entry) }
                }
                return Array(found.prefix(limit))
            }
            let points = try rows(
                "SELECT \(LogbookRows.trackColumns), revision FROM track WHERE sent = 0 ORDER BY id LIMIT ?",
                LogbookRows.trackRevisionColumn
            ) { .track(LogbookRows.track($0)) }
            let records = try rows(
                "SELECT \(LogbookRows.airColumns), revision FROM air WHERE sent = 0 ORDER BY id LIMIT ?",
                LogbookRows.airRevisionColumn
            ) { .air(LogbookRows.air($0)) }
            let readings = try rows(
                "SELECT \(LogbookRows.sensorColumns), revision FROM sensor WHERE sent = 0 ORDER BY id LIMIT ?",
                LogbookRows.sensorRevisionColumn
            ) { .sensor(LogbookRows.sensor($0)) }
            // Each list is in id order, which is time order within a table: merged by time.
            let all = (points + records + readings).enumerated().sorted {
                ($0.element.row.time, $0.offset) < ($1.element.row.time, $1.offset)
            }
            return all.prefix(limit).map(\.element)
        }
    }

    /// Marks these rows (`t42`, `a7`) sent, each only if its content is still the
    /// revision that was acknowledged, in one transaction; `withheld` rows (never to leave
    /// the device) are also done with for the collector.
    public func markSent(_ rows: [(key: String, revision: Int64)], withheld: Bool = false) throws(LogbookError) {
        guard !rows.isEmpty else { return }
        let set = withheld ? "sent = 1, stored = 1" : "sent = 1"
        let keys = rows.map { RowKey(key: $0.key, revision: $0.revision) }
        try with { c throws(SQLiteError) in
            try c.database.transaction { () throws(SQLiteError) in
                for row in keys {
                    guard let kind = RowKind(id: row.key), let id = Int64(row.key.dropFirst()) else { continue }
                    try c.run(
                        "UPDATE \(kind.rawValue) SET \(set) WHERE id = ? AND revision = ?",
                        [.integer(id), .integer(row.revision)])
                }
            }
        }
    }

    /// How many rows wait for the broker.
    public func unsentCount() throws(LogbookError) -> Int {
        try with { c throws(SQLiteError) in
            var count: Int64 = 0
            for kind in RowKind.allCases {
                count += try c.integer("SELECT count(*) FROM \(kind.rawValue) WHERE sent = 0") ?? 0
            }
            return Int(count)
        }
    }
}

/// A row's key and the revision of its content (what an acknowledgement is for).
struct RowKey: Sendable {
    var key: String
    var revision: Int64
}
