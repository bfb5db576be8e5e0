import FleetWire
import Foundation

/// The rows written after the ones a reader has seen (the device page's live feed), and
/// a row's line as much of its position as a reader may see.
///
/// Contract: ids only grow within a table, so a reader that keeps the last id per kind
/// sees each new row once, whatever process wrote it; a row revised in place (an hour
/// back-filled) keeps its id and is not seen again.
extension Logbook {
    /// The highest id of each kind (0 for an empty table).
    public func lastIDs() throws(LogbookError) -> [RowKind: Int64] {
        try with { c throws(SQLiteError) in
            var ids: [RowKind: Int64] = [:]
            for kind in RowKind.allCases {
                ids[kind] = try c.integer("SELECT coalesce(max(id), 0) FROM \(kind.rawValue)") ?? 0
            }
            return ids
        }
    }

    /// A number that differs from the one this call returned before whenever another
    /// connection (the logger) has committed since, as soon as its commit can be read
    /// (SQLite's `data_version`): what a reader keys what it made from the logbook on. A
    /// file watch sees the write-ahead log written a moment before the commit is visible.
    public func dataVersion() throws(LogbookError) -> Int64 {
        try with { c throws(SQLiteError) in try c.integer("PRAGMA data_version") ?? 0 }
    }

    /// Up to `limit` rows of each kind with an id above `seen`'s, merged by time.
    public func rows(after seen: [RowKind: Int64], limit: Int) throws(LogbookError) -> [OutboxRow] {
        try with { c throws(SQLiteError) in
            func rows(_ select: String, _ kind: RowKind, _ make: (SQLiteDatabase.Statement) -> OutboxRow)
                throws(SQLiteError) -> [OutboxRow]
            {
                let query = try c.statement("\(select) WHERE id > ? ORDER BY id LIMIT ?")
                try query.bind([.integer(seen[kind] ?? 0), .integer(Int64(limit))])
                var found: [OutboxRow] = []
                while try query.step() { found.append(make(query)) }
                return found
            }
            let all =
                try rows(LogbookRows.trackSelect, .track) { .track(LogbookRows.track($0)) }
                + rows(LogbookRows.airSelect, .air) { .air(LogbookRows.air($0)) }
                + rows(LogbookRows.sensorSelect, .sensor) { .sensor(LogbookRows.sensor($0)) }
            return all.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(
                \.element)
        }
    }

    /// The latest track point, or nil.
    public func latestTrackPoint() throws(LogbookError) -> TrackPoint? {
        try with { c throws(SQLiteError) in
            let query = try c.statement("\(LogbookRows.trackSelect) ORDER BY t_ms DESC, id DESC LIMIT 1")
            try query.bind([])
            return try query.step() ? LogbookRows.track(query) : nil
        }
    }

    /// The latest air row with values (not pending or unavailable), or nil.
    public func latestAirRecord() throws(LogbookError) -> AirRecord? {
        try with { c throws(SQLiteError) in
            let query = try c.statement(
                "\(LogbookRows.airSelect) WHERE us_aqi IS NOT NULL ORDER BY hour_s DESC, id DESC LIMIT 1")
            try query.bind([])
            return try query.step() ? LogbookRows.air(query) : nil
        }
    }
}

extension Logbook.OutboxRow {
    /// The row as it may be shown where `position` rules (`[mqtt]`, `[serve]`): exact;
    /// coarse, on `grid` degrees, a track point claiming no better accuracy than half a
    /// cell and without its altitude; none, air and sensor rows without their place and
    /// no track point at all (nil).
    public func line(showing position: OutboundPosition, grid: Double) -> String? {
        switch (self, position) {
        case (.track, .none): return nil
        case (.track(let point), .coarse): return Logbook.OutboxRow.track(point.coarse(grid: grid)).json
        case (.air(var record), .coarse):
            record.coordinate = record.coordinate.rounded(toDegrees: grid)
            return Logbook.OutboxRow.air(record).json
        case (.air, .none), (.sensor, .none): return json(position: false)
        case (.sensor(var reading), .coarse):
            reading.coordinate = reading.coordinate?.rounded(toDegrees: grid)
            return Logbook.OutboxRow.sensor(reading).json
        default: return json
        }
    }
}

extension TrackPoint {
    /// The point on a `grid`-degree grid, claiming no better accuracy than half a cell,
    /// without its altitude.
    public func coarse(grid: Double) -> TrackPoint {
        var copy = self
        copy.coordinate = coordinate.rounded(toDegrees: grid)
        copy.accuracy = max(accuracy ?? 0, grid * 111_195 / 2)
        copy.altitude = nil
        return copy
    }
}
