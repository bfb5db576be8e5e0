import FleetStore
import FleetWire
import Foundation
import Geo
import Platform

/// Writes what the collector received into its database: devices, rows, the hourly
/// roll-up (``HourlyRollup``) and the acknowledged ids, in one transaction per batch.
///
/// Contract:
/// - Idempotent on (device, id): a row stored again changes nothing, unless it carries a
///   newer revision, which replaces the older content — also when it moved the row's time,
///   and so its month's partition (``PartitionMonth``); an older revision never replaces a
///   newer one.
/// - All or nothing per batch. When the batch fails for its data (SQLSTATE 22, 23 or 54),
///   every statement a message causes is tried alone — each device's news, each row with
///   its hour's bucket — so that one bad message is refused and the others are stored.
/// - Rows travel as one jsonb parameter per kind (`jsonb_to_recordset`): no value is ever
///   spliced into SQL, and a batch is one statement per table.
public struct RowStore: Sendable {
    /// What is known of a device from this batch: its topics, its status, its software.
    public struct DeviceUpdate: Sendable, Equatable {
        /// The device's topics' prefix.
        public var prefix: String
        /// When it was last heard from (or, when not ``heard``, when its retained news came).
        public var seen: Date
        /// True when the device itself spoke (a message not retained): only then does its
        /// `last_seen` move. A retained status or hello is what it last said, perhaps long
        /// ago, handed to a collector that subscribed (restarted) just now.
        public var heard: Bool
        /// Its status topic's last word ("online", "offline").
        public var status: String?
        /// What it runs.
        public var software: String?
        /// How far behind its newest row this batch stores (ms).
        public var lag: Int64?
        /// When its hello showed that the store holds less than was acknowledged to it.
        public var rewound: Date?
        /// Its logbook's current incarnation, as its hello said.
        public var incarnation: String?

        /// An update heard at `seen` on `prefix` (`heard` false: only retained news).
        public init(prefix: String, seen: Date, heard: Bool = true) {
            self.prefix = prefix
            self.seen = seen
            self.heard = heard
        }
    }

    package let database: PostgresConnection
    /// The oldest hour whose rows are kept (`[collect] keep`): an older hour's bucket holds
    /// rows since dropped, and is never made again from what is left (nil: all are kept).
    package let rollupSince: Date?

    package init(database: PostgresConnection, rollupSince: Date? = nil) {
        self.database = database
        self.rollupSince = rollupSince
    }

    /// What a batch's write refused: rows and devices, each with the database's reason.
    public struct Refusals: Sendable {
        /// Rows refused for their data.
        public var rows: [(DeviceRow, DatabaseError)] = []
        /// Devices whose news (status, hello, last seen) was refused for its data.
        public var devices: [String] = []
        /// Nothing was refused.
        public var isEmpty: Bool { rows.isEmpty && devices.isEmpty }
    }

    /// Stores `rows` (deduplicated by the caller or not: the newest revision of a key
    /// wins), `devices` and the `throughs`; returns what was refused for its data.
    public func write(
        rows: [DeviceRow], devices: [String: DeviceUpdate], throughs: [StoreLedger.StreamKey: Int64]
    ) throws(DatabaseError) -> Refusals {
        let rows = Self.newest(rows)
        do {
            try database.transaction { () throws(DatabaseError) in
                // First: the devices' rows it locks make the transactions of a share group's
                // members that store rows of one device wait for each other, so that each
                // makes the hour's roll-up again from the other's committed rows.
                try writeDevices(devices)
                let held = try HourlyRollup.heldHours(rows, database)
                for kind in DeviceRow.Kind.allCases {
                    let ofKind = rows.filter { $0.kind == kind }
                    if !ofKind.isEmpty { try insert(ofKind, kind: kind) }
                }
                try HourlyRollup.refresh(rows, held: held, since: rollupSince, database)
                try writeThroughs(throughs)
            }
            return Refusals()
        } catch let error where error.isDataError {
            return try writeOneByOne(rows: rows, devices: devices, throughs: throughs)
        }
    }

    /// The batch refused for its data, written again with every statement a message caused
    /// in a savepoint of its own — each device's news, each row with its hour's bucket — so
    /// that the one bad message is refused and every other stored.
    private func writeOneByOne(
        rows: [DeviceRow], devices: [String: DeviceUpdate], throughs: [StoreLedger.StreamKey: Int64]
    ) throws(DatabaseError) -> Refusals {
        var refusals = Refusals()
        try database.transaction { () throws(DatabaseError) in
            for (device, update) in devices.sorted(by: { $0.key < $1.key }) {
                if let error = try alone({ () throws(DatabaseError) in try writeDevices([device: update]) }) {
                    refusals.devices.append(device)
                    _ = error
                }
            }
            let refusedDevices = Set(refusals.devices)
            for row in rows where refusedDevices.contains(row.device) {
                refusals.rows.append((row, .command(state: "23503", message: "its device's news was refused")))
            }
            for row in rows where !refusedDevices.contains(row.device) {
                let stored = try alone { () throws(DatabaseError) in
                    let held = try HourlyRollup.heldHours([row], database)
                    try insert([row], kind: row.kind)
                    try HourlyRollup.refresh([row], held: held, since: rollupSince, database)
                }
                if let error = stored { refusals.rows.append((row, error)) }
            }
            // Every stream's `through` is the ledger's own, of valid devices: never the data's
            // fault; a device whose news was refused has no `devices` row to hang it on.
            _ = try alone { () throws(DatabaseError) in
                try writeThroughs(throughs.filter { !refusedDevices.contains(StreamOwner.split($0.key.device).device) })
            }
        }
        return refusals
    }

    /// Runs `body` in a savepoint: nil when it worked, the error when the database refused
    /// it for its data (rolled back to the savepoint); any other error ends the transaction.
    private func alone(_ body: () throws(DatabaseError) -> Void) throws(DatabaseError) -> DatabaseError? {
        try database.execute("SAVEPOINT one_message")
        do {
            try body()
            try database.execute("RELEASE SAVEPOINT one_message")
            return nil
        } catch let error where error.isDataError {
            try database.execute("ROLLBACK TO SAVEPOINT one_message")
            return error
        }
    }

    /// One row per key: the highest revision, the last received among equals.
    static func newest(_ rows: [DeviceRow]) -> [DeviceRow] {
        var index: [String: Int] = [:]
        var kept: [DeviceRow] = []
        for row in rows {
            let key = row.key
            if let at = index[key] {
                if row.revision >= kept[at].revision { kept[at] = row }
            } else {
                index[key] = kept.count
                kept.append(row)
            }
        }
        return kept
    }

    private func writeDevices(_ devices: [String: DeviceUpdate]) throws(DatabaseError) {
        // Devices that spoke move their last_seen; those with only retained news do not
        // (one statement each, so that neither looks the other up).
        try writeDevices(devices.filter(\.value.heard), heard: true)
        try writeDevices(devices.filter { !$0.value.heard }, heard: false)
    }

    private func writeDevices(_ devices: [String: DeviceUpdate], heard: Bool) throws(DatabaseError) {
        guard !devices.isEmpty else { return }
        func text(_ value: String?) -> String { value.map(JSONText.quoted) ?? "null" }
        let records = devices.sorted { $0.key < $1.key }.map { device, update in
            "{\"device_id\":\(JSONText.quoted(device)),\"seen\":\"\(UTCTime.iso8601(update.seen))\","
                + "\"prefix\":\(JSONText.quoted(update.prefix)),\"status\":\(text(update.status)),"
                + "\"software\":\(text(update.software)),\"lag\":\(update.lag.map(String.init) ?? "null"),"
                + "\"rewound\":\(text(update.rewound.map(UTCTime.iso8601))),\"incarnation\":\(text(update.incarnation))}"
        }
        try database.execute(
            """
            INSERT INTO devices (device_id, first_seen, last_seen, status, software_version, topic_prefix, last_lag_ms,
                                 rewound_at, incarnation)
            SELECT d.device_id, d.seen, d.seen, d.status, d.software, d.prefix, d.lag, d.rewound, d.incarnation
            FROM jsonb_to_recordset($1::jsonb)
                AS d(device_id text, seen timestamptz, status text, software text, prefix text, lag bigint,
                     rewound timestamptz, incarnation text)
            ON CONFLICT (device_id) DO UPDATE SET
                last_seen = \(heard ? "greatest(devices.last_seen, EXCLUDED.last_seen)" : "devices.last_seen"),
                status = coalesce(EXCLUDED.status, devices.status),
                software_version = coalesce(EXCLUDED.software_version, devices.software_version),
                topic_prefix = EXCLUDED.topic_prefix,
                last_lag_ms = coalesce(EXCLUDED.last_lag_ms, devices.last_lag_ms),
                rewound_at = coalesce(EXCLUDED.rewound_at, devices.rewound_at),
                incarnation = coalesce(EXCLUDED.incarnation, devices.incarnation)
            """, ["[" + records.joined(separator: ",") + "]"])
    }

    private func insert(_ rows: [DeviceRow], kind: DeviceRow.Kind) throws(DatabaseError) {
        let columns = Column.of(kind)
        let names = columns.map(\.name)
        let table = kind.rawValue
        let typed = columns.map { "\($0.name) \($0.type.sql)" }.joined(separator: ", ")
        let list = (["device_id", "incarnation", "id", "n", "revision", "time"] + names).joined(separator: ", ")
        let updates = (["revision", "time"] + names + ["stored_at", "payload"]).map { "\($0) = EXCLUDED.\($0)" }
            .joined(separator: ", ")
        let body = rows.map { row -> String in
            // Written by hand: Foundation's writer (with its sorted keys compared through
            // ICU) was half the collector's CPU per row.
            var record =
                "{\"device_id\":\(JSONText.quoted(row.device)),\"incarnation\":\(JSONText.quoted(row.incarnation)),"
                + "\"id\":\"\(row.id)\",\"n\":\(row.number),\"revision\":\(row.revision),"
                + "\"time\":\"\(UTCTime.iso8601(row.time))\""
            for (name, value) in row.columns {
                record += ",\"\(name)\":" + value.jsonText
            }
            // The published line goes in as it is: it was checked to be a JSON object.
            return record + (row.mayBeStored == false ? "" : ",\"maybe\":true") + ",\"payload\":" + row.line + "}"
        }
        // The key holds `time` (a partitioned table's must), so a revision that moves a row's
        // time deletes the older version, and a late older revision of a moved row is
        // refused (`NOT EXISTS`): a row is stored once whatever its revisions did to its time.
        // Both look in every month's partition, so only for rows that may be stored already
        // (`maybe`): new ones, most of them, cost one index probe, not one per month.
        let key = "t.device_id = r.device_id AND t.incarnation = r.incarnation AND t.id = r.id AND t.time <> r.time"
        try database.execute(
            """
            WITH r AS MATERIALIZED (
                SELECT * FROM jsonb_to_recordset($1::jsonb)
                    AS r(device_id text, incarnation text, id text, n bigint, revision bigint, time timestamptz,
                         \(typed), maybe boolean, payload jsonb)
            ), moved AS (
                DELETE FROM \(table) t USING r WHERE r.maybe AND r.revision > 0 AND \(key) AND t.revision < r.revision
            )
            INSERT INTO \(table) (\(list), stored_at, payload)
            SELECT \(list), statement_timestamp(), payload FROM r
            WHERE r.maybe IS NOT TRUE OR NOT EXISTS (SELECT 1 FROM \(table) t WHERE \(key) AND t.revision >= r.revision)
            ON CONFLICT (device_id, incarnation, id, time) DO UPDATE SET \(updates)
            WHERE \(table).revision < EXCLUDED.revision
            """, ["[" + body.joined(separator: ",") + "]"])
    }

    private func writeThroughs(_ throughs: [StoreLedger.StreamKey: Int64]) throws(DatabaseError) {
        guard !throughs.isEmpty else { return }
        let records = throughs.sorted { $0.key < $1.key }.map { key, through in
            let (device, incarnation) = StreamOwner.split(key.device)
            return "{\"device_id\":\(JSONText.quoted(device)),\"incarnation\":\(JSONText.quoted(incarnation)),"
                + "\"kind\":\"\(key.kind.rawValue)\",\"through\":\(through)}"
        }
        try database.execute(
            """
            INSERT INTO acknowledged (device_id, incarnation, kind, through)
            SELECT a.device_id, a.incarnation, a.kind, a.through
            FROM jsonb_to_recordset($1::jsonb) AS a(device_id text, incarnation text, kind text, through bigint)
            WHERE EXISTS (SELECT 1 FROM devices WHERE devices.device_id = a.device_id)
            ON CONFLICT (device_id, incarnation, kind)
                DO UPDATE SET through = greatest(acknowledged.through, EXCLUDED.through)
            """, ["[" + records.joined(separator: ",") + "]"])
    }

    /// Each stream of `kind` as the database holds it, in one statement: its stream owner,
    /// `through`, and the ids stored above it, of the devices of `devices` (a JSON array of
    /// device ids; nil: every device).
    static func streams(of kind: DeviceRow.Kind, devices: String?, _ database: PostgresConnection)
        throws(DatabaseError) -> [(owner: String, through: Int64, above: [Int64])]
    {
        // Each stream's ids above its `through`, through the (device, incarnation, n)
        // index: not a scan of every row ever stored. Every commit writes the `through`
        // of each stream it stored in, so every stream has its `acknowledged` row.
        // (`OFFSET 0` keeps the look per stream: flattened, it became a merge of all.)
        let rows = try database.execute(
            """
            SELECT a.device_id, a.incarnation, a.through, r.n FROM acknowledged a
            LEFT JOIN LATERAL (
                SELECT t.n FROM \(kind.rawValue) t
                WHERE t.device_id = a.device_id AND t.incarnation = a.incarnation AND t.n > a.through OFFSET 0
            ) r ON true
            WHERE a.kind = $1 AND ($2::jsonb IS NULL OR a.device_id IN (SELECT jsonb_array_elements_text($2::jsonb)))
            ORDER BY 1, 2, 4
            """, [kind.rawValue, devices])
        var streams: [(owner: String, through: Int64, above: [Int64])] = []
        for row in rows {
            guard let device = row[0], let through = row[2].flatMap({ Int64($0) }) else { continue }
            let owner = StreamOwner.name(device: device, incarnation: row[1] ?? "")
            if streams.last?.owner != owner { streams.append((owner, through, [])) }
            if let n = row[3].flatMap({ Int64($0) }) { streams[streams.count - 1].above.append(n) }
        }
        return streams
    }

    /// Every stream of `devices` (each kind, each incarnation): its `through` and the ids
    /// stored above it; nothing for an empty list.
    static func streams(of devices: [String], _ database: PostgresConnection) throws(DatabaseError)
        -> [StoreLedger.StreamKey: (through: Int64, above: [Int64])]
    {
        guard !devices.isEmpty else { return [:] }
        let list = "[" + devices.map(JSONText.quoted).joined(separator: ",") + "]"
        var found: [StoreLedger.StreamKey: (through: Int64, above: [Int64])] = [:]
        for kind in DeviceRow.Kind.allCases {
            for stream in try streams(of: kind, devices: list, database) {
                found[StoreLedger.StreamKey(device: stream.owner, kind: kind)] = (stream.through, stream.above)
            }
        }
        return found
    }
}
