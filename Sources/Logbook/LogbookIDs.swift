import FleetWire

/// Row ids that are never given back: a row's id (`t42`) names it for the collector and
/// every subscriber for the device's lifetime, so a pruned id must not name a new row.
///
/// Contract: a new row's id is one more than the highest id its table ever held — the
/// highest it holds now, or the highest recorded in `meta` (`highest_<kind>`) before
/// rows were deleted (``keepHighest(_:)``, in the deleting transaction). SQLite alone
/// would reuse the ids of deleted rows at the end of the table.
enum LogbookIDs {
    static func key(_ kind: RowKind) -> String { "highest_\(kind.rawValue)" }

    /// The SQL expression of the next id of `kind` (evaluated inside the INSERT, so in its
    /// transaction).
    static func next(_ kind: RowKind) -> String {
        let table = kind.rawValue
        return "(SELECT max(coalesce((SELECT max(id) FROM \(table)), 0), "
            + "coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '\(key(kind))'), 0)) + 1)"
    }

    /// Records each table's highest id before rows are deleted from it.
    static func keepHighest(_ connection: LogbookConnection) throws(SQLiteError) {
        for kind in RowKind.allCases {
            try connection.run(
                """
                INSERT INTO meta (key, value) SELECT ?, max(id) FROM \(kind.rawValue) WHERE true
                ON CONFLICT (key) DO UPDATE SET value = max(CAST(meta.value AS INTEGER), CAST(excluded.value AS INTEGER))
                """, [.text(key(kind))])
        }
    }

    /// A track row whose time a re-stamp may still change (see ``Logbook/settleTimes(exceptBoot:)``).
    static let unsettled = "boot_s IS NOT NULL AND time_source = 'system'"

    /// The SQL condition on `id` that keeps a track row, and every row after it, from
    /// uploads while its time may change: a server is never sent a time the logbook changes later.
    static let settledTrack =
        "id < coalesce((SELECT min(id) FROM track WHERE \(unsettled)), 9223372036854775807)"
}
