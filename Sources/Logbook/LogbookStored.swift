import FleetWire
import Foundation

/// The collector's side of the outbox (`[mqtt] end-to-end = collector`): which published
/// rows the collector said it stored, and making the others unsent again so that they
/// are published once more.
///
/// Contract:
/// - A row is unstored from the moment it is written while ``Logbook/collector`` is on,
///   and again whenever its content changes, until an acknowledgement covers it: its id
///   at or below the kind's `through`, or in one of the kind's `stored` ranges, when its
///   revision is 0, or its key listed in `revised` at its revision or a newer one. No
///   other event marks a row stored.
/// - ``requeueUnstored()`` and ``replay(kind:from:)`` only ever turn published rows
///   back to unsent; what the collector stored is never sent again by them.
/// - Kinds are named as the export names them: `track`, `air`, `sensor`.
extension Logbook {
    /// Marks what an acknowledgement covers stored, in one transaction; returns how many
    /// rows it newly covered.
    @discardableResult
    public func markStored(
        through: [RowKind: Int64], revised: [String: Int64], stored ranges: [RowKind: [ClosedRange<Int64>]] = [:]
    ) throws(LogbookError) -> Int {
        try with { c throws(SQLiteError) in
            var covered = 0
            try c.database.transaction { () throws(SQLiteError) in
                for (kind, id) in through.sorted(by: { $0.key < $1.key }) {
                    try c.run(
                        "UPDATE \(kind.rawValue) SET stored = 1 WHERE stored = 0 AND id <= ? AND revision = 0",
                        [.integer(id)])
                    covered += c.database.changes
                }
                for (kind, list) in ranges.sorted(by: { $0.key < $1.key }) {
                    for range in list {
                        try c.run(
                            """
                            UPDATE \(kind.rawValue) SET stored = 1
                            WHERE stored = 0 AND id BETWEEN ? AND ? AND revision = 0
                            """, [.integer(range.lowerBound), .integer(range.upperBound)])
                        covered += c.database.changes
                    }
                }
                for (key, revision) in revised {
                    guard let kind = RowKind(id: key), let id = Int64(key.dropFirst()) else { continue }
                    try c.run(
                        """
                        UPDATE \(kind.rawValue) SET stored = 1
                        WHERE stored = 0 AND id = ? AND revision <= ? AND revision > 0
                        """, [.integer(id), .integer(revision)])
                    covered += c.database.changes
                }
            }
            return covered
        }
    }

    /// Makes every published but unstored row unsent again; returns how many.
    @discardableResult
    public func requeueUnstored() throws(LogbookError) -> Int {
        try with { c throws(SQLiteError) in
            var requeued = 0
            try c.database.transaction { () throws(SQLiteError) in
                for kind in RowKind.allCases {
                    try c.run("UPDATE \(kind.rawValue) SET sent = 0 WHERE stored = 0 AND sent = 1")
                    requeued += c.database.changes
                }
            }
            return requeued
        }
    }

    /// Makes the published but unstored rows of `kind` from id `from` (through `until`)
    /// unsent again, as the collector asked; returns how many.
    @discardableResult
    public func replay(kind: RowKind, from: Int64, until: Int64? = nil) throws(LogbookError) -> Int {
        try with { c throws(SQLiteError) in
            try c.run(
                "UPDATE \(kind.rawValue) SET sent = 0 WHERE stored = 0 AND sent = 1 AND id >= ? AND id <= ?",
                [.integer(from), .integer(until ?? Int64.max)])
            return c.database.changes
        }
    }

    /// The collector's store no longer holds what it acknowledged before (its database
    /// restored from a backup, a failover to a lagging replica): the rows of `kind` above
    /// `through`, up to `acknowledged` (what the earlier acknowledgement covered), are
    /// unstored and unsent again, so that they are published once more. Returns how many.
    @discardableResult
    public func forgotten(
        kind: RowKind, above through: Int64, upTo acknowledged: Int64, except stored: [ClosedRange<Int64>] = []
    ) throws(LogbookError) -> Int {
        guard collector, acknowledged > through else { return 0 }
        // The ranges the new acknowledgement still says stored are not forgotten.
        let kept = stored.map { _ in " AND id NOT BETWEEN ? AND ?" }.joined()
        let bounds = stored.flatMap { [SQLiteValue.integer($0.lowerBound), .integer($0.upperBound)] }
        return try writing { c throws(SQLiteError) in
            try c.run(
                "UPDATE \(kind.rawValue) SET stored = 0, sent = 0 WHERE stored = 1 AND id > ? AND id <= ?\(kept)",
                [.integer(through), .integer(acknowledged)] + bounds)
            return c.database.changes
        }
    }

    /// Rows published (or still to be) that the collector has not said it stored.
    public func unstoredCount() throws(LogbookError) -> Int {
        try with { c throws(SQLiteError) in
            var count: Int64 = 0
            for kind in RowKind.allCases {
                count += try c.integer("SELECT count(*) FROM \(kind.rawValue) WHERE stored = 0") ?? 0
            }
            return Int(count)
        }
    }

    /// Per kind, the lowest id not yet stored (the first the device still delivers), or
    /// the next id to be given when every row is stored.
    public func firstUnstored() throws(LogbookError) -> [RowKind: Int64] {
        try with { c throws(SQLiteError) in
            var first: [RowKind: Int64] = [:]
            for kind in RowKind.allCases {
                if let lowest = try c.integer("SELECT min(id) FROM \(kind.rawValue) WHERE stored = 0") {
                    first[kind] = lowest
                } else {
                    first[kind] = try c.integer("SELECT \(LogbookIDs.next(kind))") ?? 1
                }
            }
            return first
        }
    }

    /// The meta key of the collector's last acknowledgement, as it came.
    public static let lastAckKey = "collector_ack"
}
