/// The logbook's tables, and how a file of an older version is brought forward.
///
/// Contract: `version` is stored in `PRAGMA user_version`; the migrations a file needs run
/// in one transaction with the version bump, so a file is never left half-migrated. Times are
/// integers (milliseconds, or seconds for an air row's hour) to keep rows small on SD
/// cards: docs/performance.md measures bytes per row.
enum LogbookSchema {
    static let version = 8

    static let migrations: [Int: String] = [
        1: """
        CREATE TABLE segment (
            id INTEGER PRIMARY KEY,
            started_ms INTEGER NOT NULL,
            boot_id TEXT,
            reason TEXT NOT NULL
        );
        CREATE TABLE track (
            id INTEGER PRIMARY KEY,
            t_ms INTEGER NOT NULL,
            time_source TEXT NOT NULL,
            boot_s REAL,
            lat REAL NOT NULL,
            lon REAL NOT NULL,
            alt REAL,
            speed REAL,
            course REAL,
            accuracy REAL,
            mode INTEGER,
            satellites INTEGER,
            provider TEXT NOT NULL,
            segment INTEGER NOT NULL
        );
        CREATE INDEX track_time ON track (t_ms);
        CREATE TABLE air (
            id INTEGER PRIMARY KEY,
            hour_s INTEGER NOT NULL,
            logged_ms INTEGER NOT NULL,
            lat REAL NOT NULL,
            lon REAL NOT NULL,
            sent_lat REAL NOT NULL,
            sent_lon REAL NOT NULL,
            place TEXT,
            us_aqi INTEGER,
            category TEXT,
            dominant TEXT,
            pm2_5 REAL,
            pm10 REAL,
            nitrogen_dioxide REAL,
            sulphur_dioxide REAL,
            ozone REAL,
            carbon_monoxide REAL,
            european_aqi INTEGER,
            pollen TEXT,
            source TEXT NOT NULL,
            reason TEXT,
            segment INTEGER NOT NULL
        );
        CREATE INDEX air_hour ON air (hour_s);
        CREATE INDEX air_pending ON air (source) WHERE source = 'pending';
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
        """,
        // The MQTT outbox: a row is published until the broker acknowledged it. Rows
        // logged without a broker configured are born sent (1): the partial indexes then
        // stay empty and cost nothing per row.
        2: """
        ALTER TABLE track ADD COLUMN sent INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE air ADD COLUMN sent INTEGER NOT NULL DEFAULT 1;
        CREATE INDEX track_unsent ON track (id) WHERE sent = 0;
        CREATE INDEX air_unsent ON air (id) WHERE sent = 0;
        """,
        // A row's content can change after it was published (back-filled, settled after
        // pending, re-stamped by GPS time): each change bumps its revision and makes it
        // unsent again, and an acknowledgement settles only the revision it was for.
        3: """
        ALTER TABLE track ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE air ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
        """,
        // Measured air: the particulate sensor's readings, with the fix at the reading
        // (none before the first fix), published like the other rows.
        4: """
        CREATE TABLE sensor (
            id INTEGER PRIMARY KEY,
            t_ms INTEGER NOT NULL,
            time_source TEXT NOT NULL,
            lat REAL,
            lon REAL,
            model TEXT NOT NULL,
            serial TEXT,
            pm1_0 REAL,
            pm2_5 REAL NOT NULL,
            pm4_0 REAL,
            pm10 REAL NOT NULL,
            pm2_5_cf1 REAL,
            temperature_c REAL,
            relative_humidity REAL,
            samples INTEGER NOT NULL,
            window_s REAL NOT NULL,
            us_aqi INTEGER,
            corrected_pm2_5 REAL,
            flags TEXT NOT NULL,
            segment INTEGER,
            sent INTEGER NOT NULL DEFAULT 1,
            revision INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX sensor_time ON sensor (t_ms);
        CREATE INDEX sensor_unsent ON sensor (id) WHERE sent = 0;
        """,
        // The collector's end-to-end acknowledgement: a row published (sent) is stored
        // only when the collector said so. Rows logged without `[mqtt] end-to-end =
        // collector` are born stored (1), so the partial indexes stay empty for them.
        5: """
        ALTER TABLE track ADD COLUMN stored INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE air ADD COLUMN stored INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE sensor ADD COLUMN stored INTEGER NOT NULL DEFAULT 1;
        CREATE INDEX track_unstored ON track (id) WHERE stored = 0;
        CREATE INDEX air_unstored ON air (id) WHERE stored = 0;
        CREATE INDEX sensor_unstored ON sensor (id) WHERE stored = 0;
        """,
        // Uploads (docs/uploads.md): each `[upload.NAME]` has a cursor per kind of row it
        // takes, the highest id the server accepted; its last error and success beside it.
        6: """
        CREATE TABLE upload (
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            last_id INTEGER NOT NULL,
            PRIMARY KEY (name, kind)
        ) WITHOUT ROWID;
        CREATE TABLE upload_state (
            name TEXT PRIMARY KEY,
            last_error TEXT,
            last_error_at TEXT,
            last_success_at TEXT,
            sent INTEGER NOT NULL DEFAULT 0,
            skipped INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        """,
        // Uploads take a track row only once its time is final: the rows a re-stamp may
        // still change are few (a start's first fixes), so the index stays small.
        7: """
        CREATE INDEX IF NOT EXISTS track_unsettled ON track (id) WHERE boot_s IS NOT NULL AND time_source = 'system';
        """,
        // Several sensors (docs/sensors.md): a row names its sensor, and a CO₂ or climate
        // sensor's row has no PM values but CO₂ and pressure. SQLite cannot drop a NOT
        // NULL, so the table is made again with every row copied as it was (ids, sent,
        // stored and revision kept: the outbox and the uploads carry on where they were).
        8: """
        CREATE TABLE sensor_v8 (
            id INTEGER PRIMARY KEY,
            t_ms INTEGER NOT NULL,
            time_source TEXT NOT NULL,
            lat REAL,
            lon REAL,
            model TEXT NOT NULL,
            serial TEXT,
            pm1_0 REAL,
            pm2_5 REAL,
            pm4_0 REAL,
            pm10 REAL,
            pm2_5_cf1 REAL,
            temperature_c REAL,
            relative_humidity REAL,
            samples INTEGER NOT NULL,
            window_s REAL NOT NULL,
            us_aqi INTEGER,
            corrected_pm2_5 REAL,
            flags TEXT NOT NULL,
            segment INTEGER,
            sent INTEGER NOT NULL DEFAULT 1,
            revision INTEGER NOT NULL DEFAULT 0,
            stored INTEGER NOT NULL DEFAULT 1,
            name TEXT NOT NULL DEFAULT 'sensor',
            co2_ppm REAL,
            pressure_hpa REAL
        );
        INSERT INTO sensor_v8 (id, t_ms, time_source, lat, lon, model, serial, pm1_0, pm2_5, pm4_0, pm10, pm2_5_cf1,
                               temperature_c, relative_humidity, samples, window_s, us_aqi, corrected_pm2_5, flags,
                               segment, sent, revision, stored)
            SELECT id, t_ms, time_source, lat, lon, model, serial, pm1_0, pm2_5, pm4_0, pm10, pm2_5_cf1, temperature_c,
                   relative_humidity, samples, window_s, us_aqi, corrected_pm2_5, flags, segment, sent, revision, stored
            FROM sensor;
        DROP TABLE sensor;
        ALTER TABLE sensor_v8 RENAME TO sensor;
        CREATE INDEX sensor_time ON sensor (t_ms);
        CREATE INDEX sensor_unsent ON sensor (id) WHERE sent = 0;
        CREATE INDEX sensor_unstored ON sensor (id) WHERE stored = 0;
        CREATE INDEX sensor_name_time ON sensor (name, t_ms);
        """,
    ]

    /// Brings a file of version `current` to ``version`` in one transaction, with
    /// `then` (a new file's incarnation) in it too: a disk that fills up half-way leaves the
    /// file as it was, never a version without the tables it promises.
    static func migrate(
        _ database: SQLiteDatabase, from current: Int, then: () throws(SQLiteError) -> Void = {}
    ) throws(SQLiteError) {
        try database.transaction { () throws(SQLiteError) in
            for next in (current + 1)...version {
                guard let sql = migrations[next] else { continue }
                try database.execute(sql)
            }
            try database.execute("PRAGMA user_version = \(version)")
            try then()
        }
    }
}
