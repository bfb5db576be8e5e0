import Foundation
import Geo

/// The logbook's upkeep: the times logged by an unconfirmed clock (a Pi without a
/// real-time clock boots in the past), re-stamped once GPS time is trusted and settled for
/// good after; and pruning, the rows older than a cutoff counted or removed, every kind.
extension Logbook {
    /// Re-stamps the positions this boot logged by its unconfirmed clock, once GPS time
    /// is trusted: a row logged `b` seconds of monotonic time before the moment of
    /// trust gets that moment's true time minus `b`. Returns how many rows changed.
    @discardableResult
    public func restamp(bootID: String, trustedTime: Date, atBootSeconds boot: Double) throws(LogbookError) -> Int {
        try writing { c throws(SQLiteError) in
            try c.run(
                """
                UPDATE track SET t_ms = ? - CAST(ROUND((? - boot_s) * 1000) AS INTEGER), time_source = 'gps',
                                 sent = CASE WHEN ? THEN 0 ELSE sent END,
                                 stored = CASE WHEN ? THEN 0 ELSE stored END, revision = revision + 1
                WHERE time_source = 'system' AND boot_s IS NOT NULL
                  AND segment IN (SELECT id FROM segment WHERE boot_id = ?)
                """,
                [
                    .integer(trustedTime.milliseconds), .real(boot), .integer(outbox ? 1 : 0),
                    .integer(collector ? 1 : 0), .text(bootID),
                ])
            return c.database.changes
        }
    }

    /// Makes the times of the track rows logged by an unconfirmed clock final: after it,
    /// ``restamp(bootID:trustedTime:atBootSeconds:)`` changes none of them, and uploads
    /// may send them (``uploadRows(kind:after:limit:)`` holds back rows whose time may
    /// still change). With `exceptBoot`, only the rows of other boots, which no re-stamp
    /// of this boot can reach. Returns how many rows it settled.
    @discardableResult
    public func settleTimes(exceptBoot: String? = nil) throws(LogbookError) -> Int {
        try writing { c throws(SQLiteError) in
            let others = exceptBoot.map { _ in " AND segment NOT IN (SELECT id FROM segment WHERE boot_id = ?)" } ?? ""
            try c.run(
                "UPDATE track SET boot_s = NULL WHERE \(LogbookIDs.unsettled)\(others)",
                exceptBoot.map { [.text($0)] } ?? [])
            return c.database.changes
        }
    }

    /// Rows older than a cutoff, per kind: what ``countBefore(_:)`` counts and
    /// ``prune(before:)`` removes. Every kind counts: sensor rows carry exact positions too.
    public struct Pruned: Sendable, Equatable {
        /// Track points.
        public var track: Int
        /// Air hours.
        public var air: Int
        /// Sensor readings.
        public var sensor: Int

        /// All of them.
        public var total: Int { track + air + sensor }
    }

    /// The WHERE clause of each kind's rows older than `cutoff`, with its argument.
    private static func older(than cutoff: Date) -> [(table: String, condition: String, value: SQLiteValue)] {
        [
            ("track", "t_ms < ?", .integer(cutoff.milliseconds)),
            ("air", "hour_s < ?", .integer(Int64(cutoff.timeIntervalSince1970))),
            ("sensor", "t_ms < ?", .integer(cutoff.milliseconds)),
        ]
    }

    /// How many rows of each kind are older than `cutoff` (what a prune would remove).
    public func countBefore(_ cutoff: Date) throws(LogbookError) -> Pruned {
        let counts: [Int] = try with { c throws(SQLiteError) in
            try Self.older(than: cutoff).map { kind throws(SQLiteError) in
                Int(try c.integer("SELECT count(*) FROM \(kind.table) WHERE \(kind.condition)", [kind.value]) ?? 0)
            }
        }
        return Pruned(track: counts[0], air: counts[1], sensor: counts[2])
    }

    /// Removes the rows of every kind older than `cutoff`, and the segments left empty, in
    /// one transaction; returns how many of each. The ids of the rows removed are never
    /// given again (``LogbookIDs``).
    public func prune(before cutoff: Date) throws(LogbookError) -> Pruned {
        let removed: [Int] = try with { c throws(SQLiteError) in
            try c.database.transaction { () throws(SQLiteError) in
                try LogbookIDs.keepHighest(c)
                var removed: [Int] = []
                for kind in Self.older(than: cutoff) {
                    try c.run("DELETE FROM \(kind.table) WHERE \(kind.condition)", [kind.value])
                    removed.append(c.database.changes)
                }
                try c.run(
                    """
                    DELETE FROM segment WHERE id NOT IN
                    (SELECT segment FROM track UNION SELECT segment FROM air
                     UNION SELECT segment FROM sensor WHERE segment IS NOT NULL)
                    """)
                return removed
            }
        }
        return Pruned(track: removed[0], air: removed[1], sensor: removed[2])
    }
}
