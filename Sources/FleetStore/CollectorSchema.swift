import FleetWire

/// The collector's tables in PostgreSQL, and how a database of an older version is
/// brought forward (docs/collector.md documents them for people who query them).
///
/// Contract: the version is kept in `airloc_collector`; each migration runs in one
/// transaction with the version bump, under an advisory lock, so two collectors starting
/// at once never migrate twice. A database whose version is newer than ``version`` is
/// refused (``DatabaseError/newerSchema(found:known:)``), never written.
package enum CollectorSchema {
    static let version = 10

    /// An advisory lock key of airloc's own (any 64-bit number no one else uses).
    static let migrationLock = "7316207384019821"

    static func rowTable(_ kind: RowKind) -> String {
        let columns = Column.of(kind).map { "    \($0.name) \($0.type.sql)," }.joined(separator: "\n")
        return """
            CREATE TABLE \(kind.rawValue) (
                device_id text NOT NULL REFERENCES devices (device_id),
                id text NOT NULL,
                n bigint NOT NULL,
                revision bigint NOT NULL,
                time timestamptz NOT NULL,
            \(columns)
                stored_at timestamptz NOT NULL,
                payload jsonb NOT NULL,
                PRIMARY KEY (device_id, id)
            );
            CREATE INDEX \(kind.rawValue)_device_time ON \(kind.rawValue) (device_id, time);

            """
    }

    static let migrations: [Int: String] = [
        1: """
        CREATE TABLE devices (
            device_id text PRIMARY KEY,
            first_seen timestamptz NOT NULL,
            last_seen timestamptz NOT NULL,
            status text,
            software_version text,
            topic_prefix text NOT NULL,
            last_lag_ms bigint
        );
        CREATE TABLE acknowledged (
            device_id text NOT NULL REFERENCES devices (device_id),
            kind text NOT NULL,
            through bigint NOT NULL,
            PRIMARY KEY (device_id, kind)
        );

        """ + RowKind.allCases.map(rowTable).joined(),
        // When a device's hello showed that the store holds less than it acknowledged (a
        // database restored from a backup): `collect status` names the device.
        2: """
        ALTER TABLE devices ADD COLUMN rewound_at timestamptz;
        """,
        // A row's identity is its device's logbook incarnation and its id: a logbook made
        // again starts at t1 again. Rows stored before keep the empty incarnation.
        3: """
        ALTER TABLE devices ADD COLUMN incarnation text;
        ALTER TABLE acknowledged ADD COLUMN incarnation text NOT NULL DEFAULT '';
        ALTER TABLE acknowledged DROP CONSTRAINT acknowledged_pkey;
        ALTER TABLE acknowledged ADD PRIMARY KEY (device_id, incarnation, kind);

        """
            + RowKind.allCases.map { kind in
                """
                ALTER TABLE \(kind.rawValue) ADD COLUMN incarnation text NOT NULL DEFAULT '';
                ALTER TABLE \(kind.rawValue) DROP CONSTRAINT \(kind.rawValue)_pkey;
                ALTER TABLE \(kind.rawValue) ADD PRIMARY KEY (device_id, incarnation, id);

                """
            }.joined(),
        // Several sensors per device: a sensor row names its sensor, and a CO₂ or climate
        // sensor's row carries CO₂ and pressure (its PM columns null). Rows stored before
        // keep null names: they are the particulate sensor's. (A database made at version 4
        // has them from migration 1, which makes the tables of today's schema.)
        4: [SensorField.name, .co2, .pressure].map { field in
            "ALTER TABLE sensor ADD COLUMN IF NOT EXISTS \(field.rawValue) \(field.type.sql);\n"
        }.joined(),
        // Share links of the fleet page (`airloc serve share`): one device, one window. The
        // token is never stored, only its SHA-256; `id` is the hash's first 12 hex digits.
        // (IF NOT EXISTS: a database taken back to an older version by hand keeps its links.)
        5: """
        CREATE TABLE IF NOT EXISTS shares (
            id text PRIMARY KEY,
            token_sha256 bytea NOT NULL UNIQUE,
            device_id text NOT NULL,
            since timestamptz NOT NULL,
            until timestamptz NOT NULL,
            expires timestamptz,
            created timestamptz NOT NULL,
            revoked timestamptz
        );
        """,
        // The hourly roll-up (HourlyRollup), filled from the rows stored before.
        6: HourlyRollupSchema.migration6,
        // 7: the row tables partitioned by month (PartitionMonth.partitionTables), their
        // rows and ids kept.
        // Several collectors of one `[collect] share` group: who acknowledges each device,
        // and the revised rows any member stored (ShareGroup).
        8: shareGroupTables,
        // The devices `[collect] devices = known` admits (`airloc collect register`).
        9: registeredDevices,
        // The hourly roll-up, one source per column (HourlyRollupSchema).
        10: HourlyRollupSchema.migration10,
    ]

    /// Creates or migrates the schema (to `target`: a test makes a database of a version
    /// before); returns the version found before.
    @discardableResult
    package static func prepare(_ database: PostgresConnection, upTo target: Int = version) throws(DatabaseError) -> Int
    {
        try database.transaction { () throws(DatabaseError) in
            try database.execute("SELECT pg_advisory_xact_lock(\(migrationLock))")
            try database.execute("CREATE TABLE IF NOT EXISTS airloc_collector (version integer NOT NULL)")
            let stored = try database.execute("SELECT max(version) FROM airloc_collector").first?.first ?? nil
            let found = stored.flatMap { Int($0) } ?? 0
            guard found <= version else { throw .newerSchema(found: found, known: version) }
            guard found < target else { return found }
            for next in (found + 1)...target {
                if next == 7 { try PartitionMonth.partitionTables(database) }
                guard let sql = migrations[next] else { continue }
                try database.execute(sql)
            }
            try database.execute("DELETE FROM airloc_collector")
            try database.execute("INSERT INTO airloc_collector (version) VALUES ($1)", [String(target)])
            return found
        }
    }

    /// The tables of migration 8 (IF NOT EXISTS: a database taken back to an older version by
    /// hand keeps them).
    static let shareGroupTables = """
        CREATE TABLE IF NOT EXISTS ack_owners (
            device_id text PRIMARY KEY,
            member text NOT NULL,
            until timestamptz NOT NULL
        );
        CREATE TABLE IF NOT EXISTS revisions (
            device_id text NOT NULL,
            incarnation text NOT NULL,
            id text NOT NULL,
            revision bigint NOT NULL,
            stored_at timestamptz NOT NULL,
            PRIMARY KEY (device_id, incarnation, id)
        );
        CREATE INDEX IF NOT EXISTS revisions_stored_at ON revisions (stored_at);
        """

    /// Migration 9: the devices `[collect] devices = known` admits (`airloc collect register`).
    static let registeredDevices = """
        CREATE TABLE IF NOT EXISTS registered_devices (
            device_id text PRIMARY KEY,
            registered timestamptz NOT NULL DEFAULT now()
        );
        """
}
