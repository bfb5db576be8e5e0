import FleetStore
import FleetWire
import Foundation
import Geo

/// What the collector keeps: `[collect] keep` of rows and `[collect] keep-hourly` of the
/// hourly roll-up (both: everything when unset). (The months are made ahead by the store,
/// before each batch: ``PartitionMonth/months(for:now:keep:)``.)
///
/// Contract:
/// - ``apply(_:now:)`` drops every row table's month partition that ended before
///   `now - keep` — detached, then dropped, never a row-by-row DELETE, and never holding
///   the row table while the month's files are unlinked — and deletes the roll-up's hours
///   older than `now - keep-hourly`. It never deletes from the default partition: its
///   rows' stamps are wrong by definition (a clock far off), so their age is unknown;
///   `collect status` counts them and says how to move or delete them. It waits at most 5 s for a lock, so
///   a long reader delays a drop to the next round instead of stalling the collector.
/// - ``storage(_:now:)`` says what is kept and when the next drop is, for
///   `collect status`.
public struct Retention: Sendable, Equatable {
    /// Seconds of rows kept (nil: all).
    public var keep: Double?
    /// Seconds of the hourly roll-up kept (nil: all).
    public var keepHourly: Double?
    /// How often the store applies it.
    public static let every: TimeInterval = 3600

    /// A retention of `keep` and `keepHourly` seconds.
    public init(keep: Double?, keepHourly: Double?) {
        self.keep = keep
        self.keepHourly = keepHourly
    }

    /// What one application did: the partitions dropped.
    public struct Outcome: Sendable, Equatable {
        /// The partitions dropped (`track_2025_01`).
        public var dropped: [String] = []
        /// Hours deleted from `air_hourly`.
        public var hoursDeleted = 0
    }

    /// Applies it at `now` (see the contract).
    @discardableResult
    package func apply(_ database: PostgresConnection, now: Date) throws(DatabaseError) -> Outcome {
        var outcome = Outcome()
        if let keep {
            let cutoff = now.addingTimeInterval(-keep)
            for kind in DeviceRow.Kind.allCases {
                for (name, month, attached) in try Self.monthTables(kind, database) where month.next.start <= cutoff {
                    try drop(name, of: kind, attached: attached, database)
                    outcome.dropped.append(name)
                }
            }
        }
        if let keepHourly {
            let deleted = try database.execute(
                "WITH gone AS (DELETE FROM air_hourly WHERE hour < $1 RETURNING 1) SELECT count(*) FROM gone",
                [UTCTime.iso8601(now.addingTimeInterval(-keepHourly))])
            outcome.hoursDeleted = Self.number(deleted)
        }
        return outcome
    }

    /// Drops one month's table in three steps, so that what the table's readers and the
    /// collector wait for is a catalogue change, never the unlinking of its files (which
    /// is as slow as the month is big): the detach locks the row table briefly, dropping
    /// the foreign key locks `devices` briefly, and the drop locks only the month itself.
    /// A drop cut short is finished by a later round (``monthTables(_:_:)`` finds the
    /// detached month).
    private func drop(_ name: String, of kind: DeviceRow.Kind, attached: Bool, _ database: PostgresConnection)
        throws(DatabaseError)
    {
        func briefly(_ command: String) throws(DatabaseError) {
            try database.transaction { () throws(DatabaseError) in
                try database.execute("SET LOCAL lock_timeout = '5s'")
                try database.execute(command)
            }
        }
        if attached { try briefly("ALTER TABLE \(kind.rawValue) DETACH PARTITION \(name)") }
        let keys = try database.execute(
            """
            SELECT format('ALTER TABLE %I DROP CONSTRAINT %I', $1::text, conname) FROM pg_constraint
            WHERE conrelid = to_regclass($1) AND contype = 'f'
            """, [name])
        for command in keys.compactMap({ $0.first ?? nil }) { try briefly(command) }
        try briefly("DROP TABLE \(name)")
    }

    /// `kind`'s month tables — its partitions, and a month detached by a drop cut short —
    /// oldest first.
    static func monthTables(_ kind: DeviceRow.Kind, _ database: PostgresConnection) throws(DatabaseError)
        -> [(String, PartitionMonth, attached: Bool)]
    {
        try database.execute(
            """
            SELECT c.relname, c.relispartition FROM pg_class c
            WHERE c.relkind = 'r' AND c.relnamespace = to_regnamespace(current_schema())
                AND c.relname ~ ('^' || $1 || '_[0-9]{4}_[0-9]{2}$')
            """, [kind.rawValue]
        ).compactMap { row -> (String, PartitionMonth, attached: Bool)? in
            guard let name = row.first ?? nil, let month = PartitionMonth(partition: name, of: kind.rawValue) else {
                return nil
            }
            return (name, month, attached: row.count > 1 && row[1] == "t")
        }.sorted { $0.1 < $1.1 }
    }

    /// The number a `SELECT count(*)` answered.
    private static func number(_ rows: [[String?]]) -> Int { Int((rows.first?.first ?? nil) ?? "") ?? 0 }

    /// `kind`'s month partitions, oldest first.
    package static func partitions(_ kind: DeviceRow.Kind, _ database: PostgresConnection) throws(DatabaseError)
        -> [(String, PartitionMonth)]
    {
        try monthTables(kind, database).filter(\.attached).map { ($0.0, $0.1) }
    }

    /// What is kept, as `collect status` shows it; nil for a database whose tables are not
    /// partitioned yet (a collector of this version migrates it when it starts).
    func storage(_ database: PostgresConnection, now: Date) throws(DatabaseError) -> CollectStatusJSON.Storage? {
        var months = Set<PartitionMonth>()
        var outside = 0
        var partitioned = false
        for kind in DeviceRow.Kind.allCases {
            guard
                try database.execute("SELECT to_regclass($1) IS NOT NULL", ["\(kind.rawValue)_default"]).first?
                    .first == "t"
            else { continue }
            partitioned = true
            months.formUnion(try Self.partitions(kind, database).map(\.1))
            let count = try database.execute("SELECT count(*) FROM \(kind.rawValue)_default")
            outside += Self.number(count)
        }
        guard partitioned else { return nil }
        let sorted = months.sorted()
        var storage = CollectStatusJSON.Storage(
            keepSeconds: keep.map { Int($0) }, keepHourlySeconds: keepHourly.map { Int($0) },
            months: sorted.map(\.text), rowsOutsideMonths: outside)
        if let keep, let oldest = sorted.first {
            // The oldest month goes once its end is `keep` old, at the first round after.
            storage.nextDrop = .init(
                month: oldest.text, at: UTCTime.iso8601Seconds(max(now, oldest.next.start.addingTimeInterval(keep))))
        }
        return storage
    }
}
