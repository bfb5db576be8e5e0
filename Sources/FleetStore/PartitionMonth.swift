import FleetWire
import Foundation
import Geo

/// The row tables' months: `track`, `air` and `sensor` are partitioned by the UTC month of
/// `time` (`track_2026_12` holds December 2026), with a default partition (`track_default`)
/// for rows of a month that has none — a clock far off, in the past or the future.
///
/// Contract:
/// - A month has a partition of its own when it is at most ``monthsBack`` months before
///   the current one and at most one after it, and not wholly older than `keep`; rows of
///   any other month land in the default partition, never refused.
/// - ``months(for:now:keep:)`` names the partitions a batch needs; the store makes them
///   (``make(_:_:)``) in a transaction of their own before the batch's. Making one moves
///   the rows its month already has in the default partition into it, under an advisory
///   lock, so two collectors never make it twice and no row is left outside its month.
/// - Retention (``Retention``) drops whole partitions, never rows one by one.
public struct PartitionMonth: Sendable, Hashable, Comparable {
    /// The month, as `year * 12 + (month - 1)`.
    public let index: Int

    /// How far back a month still gets a partition of its own.
    public static let monthsBack = 24

    /// The month whose UTC calendar holds `date`.
    public init(_ date: Date) {
        let parts = Self.calendar.dateComponents([.year, .month], from: date)
        index = (parts.year ?? 1970) * 12 + (parts.month ?? 1) - 1
    }

    package init(index: Int) { self.index = index }

    /// The month of a partition's name (`track_2026_12` → December 2026); nil for any other.
    public init?(partition name: String, of table: String) {
        guard name.hasPrefix(table + "_") else { return nil }
        let rest = name.dropFirst(table.count + 1).split(separator: "_")
        guard rest.count == 2, rest[0].count == 4, rest[1].count == 2, let year = Int(rest[0]),
            let month = Int(rest[1]), (1...12).contains(month)
        else { return nil }
        index = year * 12 + month - 1
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// `2026-12`.
    public var text: String { String(format: "%04d-%02d", index / 12, index % 12 + 1) }

    /// Its first instant.
    public var start: Date {
        Self.calendar.date(from: DateComponents(year: index / 12, month: index % 12 + 1, day: 1)) ?? .distantPast
    }

    /// The month after.
    public var next: PartitionMonth { .init(index: index + 1) }

    /// Its partition of `kind`.
    public func name(_ kind: RowKind) -> String {
        "\(kind.rawValue)_" + String(format: "%04d_%02d", index / 12, index % 12 + 1)
    }

    /// Ordered in time.
    public static func < (a: PartitionMonth, b: PartitionMonth) -> Bool { a.index < b.index }

    /// Whether this month gets a partition of its own at `now` (see the contract).
    public func wanted(now: Date, keep: Double?) -> Bool {
        let current = PartitionMonth(now)
        guard index >= current.index - Self.monthsBack, index <= current.index + 1 else { return false }
        if let keep, next.start <= now.addingTimeInterval(-keep) { return false }
        return true
    }

    /// The times whose months may have a partition of their own at `now` (``monthsBack``
    /// months back to the end of the next month): a row outside is of a clock far off, and
    /// lands in the default partition. One calendar lookup for a batch, not one a row.
    public static func span(now: Date) -> Range<Date> {
        let current = PartitionMonth(now)
        return PartitionMonth(index: current.index - monthsBack).start..<current.next.next.start
    }

    /// The (kind, month) partitions `rows` need, with this month's and the next's for every
    /// kind (made ahead of the rows that need them).
    public static func months(for rows: [some TimedRow], now: Date, keep: Double?) -> Set<Needed> {
        let current = PartitionMonth(now)
        var needed = Set<Needed>()
        for kind in RowKind.allCases {
            needed.insert(Needed(kind: kind, month: current))
            needed.insert(Needed(kind: kind, month: current.next))
        }
        var seen = Set<Needed>()
        for row in rows {
            let month = Needed(kind: row.kind, month: PartitionMonth(row.time))
            guard seen.insert(month).inserted, month.month.wanted(now: now, keep: keep) else { continue }
            needed.insert(month)
        }
        return needed
    }

    /// One partition to have.
    public struct Needed: Sendable, Hashable {
        /// Its table.
        public var kind: RowKind
        /// Its month.
        public var month: PartitionMonth

        /// `kind`'s partition of `month`.
        public init(kind: RowKind, month: PartitionMonth) {
            self.kind = kind
            self.month = month
        }
    }

    /// Makes the partitions of `needed` that are not there yet (one statement, its own
    /// transaction).
    package static func make(_ needed: [Needed], _ database: PostgresConnection) throws(DatabaseError) {
        guard !needed.isEmpty else { return }
        let sorted = needed.sorted { ($0.kind.rawValue, $0.month) < ($1.kind.rawValue, $1.month) }
        let kinds = "{" + sorted.map(\.kind.rawValue).joined(separator: ",") + "}"
        let starts = "{" + sorted.map { "\"\(UTCTime.iso8601($0.month.start))\"" }.joined(separator: ",") + "}"
        try database.execute(
            "SELECT airloc_month_partition(k, m) FROM unnest($1::text[], $2::timestamptz[]) AS p(k, m)",
            [kinds, starts])
    }

    /// Makes `parent`'s partition of `month`'s UTC month unless it is there; true when made.
    /// (A function in the database, so that the migration makes the months it finds.)
    static let function = """
        CREATE OR REPLACE FUNCTION airloc_month_partition(parent text, month timestamptz) RETURNS boolean
        LANGUAGE plpgsql AS $fn$
        DECLARE
            start_at timestamp := date_trunc('month', month AT TIME ZONE 'UTC');
            lower_bound timestamptz := start_at AT TIME ZONE 'UTC';
            upper_bound timestamptz := (start_at + interval '1 month') AT TIME ZONE 'UTC';
            part text := parent || '_' || to_char(start_at, 'YYYY_MM');
        BEGIN
            IF to_regclass(part) IS NOT NULL THEN RETURN false; END IF;
            PERFORM pg_advisory_xact_lock(7316207384019822);
            IF to_regclass(part) IS NOT NULL THEN RETURN false; END IF;
            -- No row of the month may reach the default partition between the move and the attach.
            EXECUTE format('LOCK TABLE %I IN ACCESS EXCLUSIVE MODE', parent || '_default');
            EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', part, parent);
            EXECUTE format(
                'WITH moved AS (DELETE FROM %I WHERE time >= %L AND time < %L RETURNING *) INSERT INTO %I SELECT * FROM moved',
                parent || '_default', lower_bound, upper_bound, part);
            EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                parent, part, lower_bound, upper_bound);
            RETURN true;
        END
        $fn$;

        """

    /// Schema 7: each row table becomes a partitioned one, its rows and ids kept, with a
    /// BRIN index on `time`, an index on each stream's ids (the ledger's reading at start
    /// looks only above each stream's `through`), the months its rows need (as ``wanted(now:keep:)`` says,
    /// `keep` aside) and this month's and the next. A table partitioned already (a database
    /// whose version was taken back by hand) is left as it is.
    static func partitionTables(_ database: PostgresConnection) throws(DatabaseError) {
        try database.execute(function)
        for kind in RowKind.allCases {
            let relkind = try database.execute(
                "SELECT relkind FROM pg_class WHERE oid = to_regclass($1)", [kind.rawValue])
            guard relkind.first?.first == "r" else { continue }
            try database.execute(migration(kind))
        }
    }

    private static func migration(_ kind: RowKind) -> String {
        let table = kind.rawValue
        let old = "\(table)_before_partitions"
        let columns =
            ["device_id", "incarnation", "id", "n", "revision", "time"] + Column.of(kind).map(\.name) + [
                "stored_at", "payload",
            ]
        let typed = Column.of(kind).map { "    \($0.name) \($0.type.sql),\n" }.joined()
        let month = "date_trunc('month', now() AT TIME ZONE 'UTC')"
        return """
            ALTER TABLE \(table) RENAME TO \(old);
            ALTER TABLE \(old) RENAME CONSTRAINT \(table)_pkey TO \(old)_pkey;
            ALTER INDEX \(table)_device_time RENAME TO \(old)_device_time;
            ALTER TABLE \(old) RENAME CONSTRAINT \(table)_device_id_fkey TO \(old)_device_id_fkey;
            CREATE TABLE \(table) (
                device_id text NOT NULL REFERENCES devices (device_id),
                incarnation text NOT NULL DEFAULT '',
                id text NOT NULL,
                n bigint NOT NULL,
                revision bigint NOT NULL,
                time timestamptz NOT NULL,
            \(typed)    stored_at timestamptz NOT NULL,
                payload jsonb NOT NULL,
                PRIMARY KEY (device_id, incarnation, id, time)
            ) PARTITION BY RANGE (time);
            CREATE INDEX \(table)_device_time ON \(table) (device_id, time);
            CREATE INDEX \(table)_time_brin ON \(table) USING brin (time);
            CREATE INDEX \(table)_device_n ON \(table) (device_id, incarnation, n);
            CREATE TABLE \(table)_default PARTITION OF \(table) DEFAULT;
            SELECT airloc_month_partition('\(table)', m) FROM (
                SELECT DISTINCT date_trunc('month', time, 'UTC') AS m FROM \(old)
                UNION SELECT (\(month)) AT TIME ZONE 'UTC'
                UNION SELECT (\(month) + interval '1 month') AT TIME ZONE 'UTC'
            ) months
            WHERE m >= (\(month) - interval '\(monthsBack) months') AT TIME ZONE 'UTC'
                AND m <= (\(month) + interval '1 month') AT TIME ZONE 'UTC';
            INSERT INTO \(table) (\(columns.joined(separator: ", ")))
                SELECT \(columns.joined(separator: ", ")) FROM \(old);
            DROP TABLE \(old);

            """
    }
}

/// A row as its month's partition sees it: its table and its time.
public protocol TimedRow {
    /// Its table.
    var kind: RowKind { get }
    /// Its time.
    var time: Date { get }
}
