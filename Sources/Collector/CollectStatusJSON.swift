import FleetStore
import Foundation
import Geo
import Platform

/// `airloc collect status --json`, schema `airloc.collect-status/1` (docs/json-schema.md):
/// the devices the database knows, what each has stored, and what the running collector
/// says of itself.
///
/// Contract: `collector` is null when no collector has written its state file, and its
/// `running` is false when the process that wrote it is gone; `database_error` says why
/// the devices could not be read (then `devices` is empty). Times are ISO 8601 UTC.
public struct CollectStatusJSON: Encodable, Sendable {
    /// The document's schema.
    public var schema = "airloc.collect-status/1"
    /// The database, without any password.
    public var database: String
    /// Why the devices could not be read.
    public var databaseError: String?
    /// What the running collector says of itself.
    public var collector: Service?
    /// Every device the database knows.
    public var devices: [Device] = []
    /// What the database keeps (null when it could not be read).
    public var storage: Storage?

    /// The row tables' months and what `[collect] keep` does to them.
    public struct Storage: Encodable, Sendable, Equatable {
        /// `[collect] keep` in seconds (null: every row is kept).
        public var keepSeconds: Int?
        /// `[collect] keep-hourly` in seconds (null: every hour is kept).
        public var keepHourlySeconds: Int?
        /// The months that have a partition (`2026-12`), oldest first.
        public var months: [String]
        /// Rows of a month with no partition (a clock far off), in the default partitions.
        public var rowsOutsideMonths: Int
        /// The next month to be dropped, and when (null when `keep` is unset or no month is kept).
        public var nextDrop: Drop?

        /// A month's drop.
        public struct Drop: Encodable, Sendable, Equatable {
            /// The month (`2025-11`).
            public var month: String
            /// The earliest time it is dropped (the collector drops at most an hour later).
            public var at: String
        }
    }

    /// What the database says: its devices and what it keeps.
    public struct Stored: Sendable {
        /// The devices.
        public var devices: [Device]
        /// What it keeps.
        public var storage: Storage?
    }

    /// The collector's own state.
    public struct Service: Encodable, Sendable {
        /// False when its process is gone.
        public var running: Bool
        /// Its process.
        public var pid: Int
        /// When it started.
        public var started: String?
        /// When it last wrote its state.
        public var updated: String?
        /// Its database's state.
        public var database: String
        /// Why rows cannot be stored (null while they are).
        public var databaseError: String?
        /// The kind of that fault (`unreachable`, `disk_full`, `read_only`, `permission`, …).
        public var databaseFault: String?
        /// When the oldest row waiting to be stored was received (null: none waits).
        public var oldestWaiting: String?
        /// Its broker's state.
        public var broker: String
        /// Rows received and not yet stored.
        public var buffered: Int
        /// Rows stored by this run.
        public var stored: Int
        /// Messages refused.
        public var refused: Int
        /// Messages refused, by reason (the labels of `/metrics`).
        public var refusedByReason: [String: Int]
        /// The devices that hold rows the store lacks and whose rows have not moved for
        /// 30 s, and since when (another subscriber takes them, an ACL drops them).
        public var behind: [String: String] = [:]
    }

    /// One device.
    public struct Device: Encodable, Sendable {
        /// Its id.
        public var deviceId: String
        /// When it was first heard from.
        public var firstSeen: String?
        /// When it was last heard from.
        public var lastSeen: String?
        /// Its status topic's last word.
        public var status: String?
        /// What it runs.
        public var softwareVersion: String?
        /// Rows per kind in the database.
        public var rows: [String: Int]
        /// Per kind, the id through which every row is stored (what the device was told).
        public var storedThrough: [String: Int64]
        /// How far behind its newest row the last batch was stored (seconds).
        public var lagS: Double?
        /// When its `stored_through` went backwards: its hello showed it was acknowledged
        /// more than the database holds (restored from a backup); null when never.
        public var rewoundAt: String?
        /// In a `[collect] share` group, the member (its client id) whose lease says this
        /// device's acknowledgements now; null outside a group, or when no lease is current.
        public var acknowledgedBy: String?
    }

    /// The status with `plan`'s state file and what the database said (``read(_:now:)``,
    /// or why it could not be read).
    public init(
        plan: CollectorPlan, stored: Result<Stored, DatabaseError>, processAlive: (Int) -> Bool = Self.isRunning,
        now: Date = Date()
    ) {
        database = plan.safeDatabaseName
        if let stateFile = plan.statusFile, let text = try? String(contentsOf: stateFile, encoding: .utf8),
            let state = CollectorState(json: text)
        {
            // A stopped collector's last word about its connections is no news: it holds none.
            let running = processAlive(state.pid)
            collector = Service(
                running: running, pid: state.pid, started: state.started.map(UTCTime.iso8601Seconds),
                updated: state.written.map(UTCTime.iso8601Seconds),
                database: running ? state.database.rawValue : "not running",
                databaseError: running ? state.databaseError : nil, databaseFault: running ? state.databaseFault : nil,
                oldestWaiting: running ? state.oldestWaiting.map(UTCTime.iso8601Seconds) : nil,
                broker: running ? state.broker.text : "not running", buffered: running ? state.buffered : 0,
                stored: state.stored, refused: state.refused, refusedByReason: state.refusedByReason)
            if running {
                let late = Set(DevicesBehind.reported(state.behind, at: now).devices)
                collector?.behind = state.behind.filter { late.contains($0.key) }.mapValues(UTCTime.iso8601Seconds)
            }
        }
        switch stored {
        case .success(let known): (devices, storage) = (known.devices, known.storage)
        case .failure(let error): databaseError = error.description
        }
    }

    /// The devices `plan`'s database knows and what it keeps, read through a connection of
    /// its own (5 s to connect at most).
    public static func read(_ plan: CollectorPlan, now: Date = Date()) -> Result<Stored, DatabaseError> {
        Result { () throws(DatabaseError) in
            let connection = try PostgresConnection(conninfo: plan.conninfo, password: plan.password, connectTimeout: 5)
            defer { connection.close() }
            let devices = try devices(connection)
            let storage = devices.isEmpty ? nil : try plan.retention.storage(connection, now: now)
            return Stored(devices: devices, storage: storage)
        }
    }

    /// Whether process `pid` still exists (signal 0 checks without sending anything).
    public static func isRunning(_ pid: Int) -> Bool { pid > 0 && kill(pid_t(pid), 0) == 0 }

    static func devices(_ database: PostgresConnection) throws(DatabaseError) -> [Device] {
        let known = try database.execute(
            "SELECT to_regclass('devices') IS NOT NULL AND to_regclass('acknowledged') IS NOT NULL")
        guard known.first?.first == "t" else { return [] }
        var rows: [String: [String: Int]] = [:]
        for kind in DeviceRow.Kind.allCases {
            for row in try database.execute("SELECT device_id, count(*) FROM \(kind.rawValue) GROUP BY device_id") {
                guard let device = row[0], let count = row[1].flatMap({ Int($0) }) else { continue }
                rows[device, default: [:]][kind.rawValue] = count
            }
        }
        var through: [String: [String: Int64]] = [:]
        // The current incarnation's (a device whose logbook was made again has two).
        for row in try database.execute(
            """
            SELECT a.device_id, a.kind, a.through FROM acknowledged a JOIN devices d USING (device_id)
            WHERE coalesce(to_jsonb(a) ->> 'incarnation', '') = coalesce(to_jsonb(d) ->> 'incarnation', '')
            """)
        {
            guard let device = row[0], let kind = row[1], let id = row[2].flatMap({ Int64($0) }) else { continue }
            through[device, default: [:]][kind] = id
        }
        var holders: [String: String] = [:]
        if try database.execute("SELECT to_regclass('ack_owners') IS NOT NULL").first?.first == "t" {
            for row in try database.execute("SELECT device_id, member FROM ack_owners WHERE until > clock_timestamp()")
            {
                if let device = row[0], let member = row[1] { holders[device] = member }
            }
        }
        let time = "to_char(%@ AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
        return try database.execute(
            """
            SELECT device_id, \(time.replacingOccurrences(of: "%@", with: "first_seen")),
                   \(time.replacingOccurrences(of: "%@", with: "last_seen")), status, software_version, last_lag_ms,
                   \(time.replacingOccurrences(of: "%@", with: "(to_jsonb(d) ->> 'rewound_at')::timestamptz"))
            FROM devices d ORDER BY device_id
            """
        ).compactMap { row in
            guard let device = row[0] else { return nil }
            var counts = rows[device] ?? [:]
            for kind in DeviceRow.Kind.allCases { counts[kind.rawValue] = counts[kind.rawValue] ?? 0 }
            return Device(
                deviceId: device, firstSeen: row[1], lastSeen: row[2], status: row[3], softwareVersion: row[4],
                rows: counts, storedThrough: through[device] ?? [:],
                lagS: row[5].flatMap(Double.init).map { $0 / 1000 },
                rewoundAt: row.count > 6 ? row[6] : nil, acknowledgedBy: holders[device])
        }
    }
}

extension CollectStatusJSON {
    /// The status for people: the database, the collector, one line per device.
    public var text: String {
        var lines = ["database:  \(database)" + (databaseError.map { " — \($0)" } ?? "")]
        if let service = collector {
            let waiting =
                service.oldestWaiting.map { "\(service.buffered) waiting (the oldest since \($0))" }
                ?? "\(service.buffered) waiting"
            let reasons = service.refusedByReason.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            lines.append(
                "collector: \(service.running ? "running (pid \(service.pid))" : "not running"); database "
                    + "\(service.database), broker \(service.broker); \(service.stored) stored, "
                    + "\(service.refused) refused\(reasons.isEmpty ? "" : " (\(reasons.joined(separator: ", ")))"), "
                    + waiting)
            if let error = service.databaseError {
                lines.append("           cannot store rows: \(error)")
            }
            for (device, since) in service.behind.sorted(by: { $0.key < $1.key }) {
                lines.append(
                    "           \(device)'s rows are not arriving (since \(since)): it holds rows the store lacks "
                        + "(another subscriber in the share group taking them? an ACL dropping them?)")
            }
        } else {
            lines.append("collector: has not run here")
        }
        for device in devices {
            let rows = DeviceRow.Kind.allCases.map { "\($0.rawValue) \(device.rows[$0.rawValue] ?? 0)" }
            let lag = device.lagS.map { String(format: "; lag %.1f s", $0) } ?? ""
            let rewound = device.rewoundAt.map { "; stored_through went backwards at \($0) (database restored?)" } ?? ""
            let holder = device.acknowledgedBy.map { "; acknowledged by \($0)" } ?? ""
            lines.append(
                "\(device.deviceId): \(device.status ?? "unknown"), last seen \(device.lastSeen ?? "never"); "
                    + rows.joined(separator: ", ") + lag + rewound + holder)
        }
        if devices.isEmpty && databaseError == nil { lines.append("no device has published yet") }
        if let storage { lines.append(storage.text) }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension CollectStatusJSON.Storage {
    /// One line: the months kept, the retention, the next drop, the rows outside every month.
    var text: String {
        func span(_ seconds: Int?) -> String {
            guard let seconds else { return "all" }
            return seconds % 86_400 == 0 ? "\(seconds / 86_400)d" : "\(seconds)s"
        }
        let kept =
            months.isEmpty
            ? "no month yet" : "\(months.count) month\(months.count == 1 ? "" : "s") (\(months[0]) to \(months.last!))"
        var line = "storage:   \(kept); keep \(span(keepSeconds)), hourly roll-up \(span(keepHourlySeconds))"
        if let drop = nextDrop { line += "; next drop: \(drop.month) at \(drop.at)" }
        if rowsOutsideMonths > 0 {
            line +=
                "; \(rowsOutsideMonths) row\(rowsOutsideMonths == 1 ? "" : "s") outside every month (a clock far off: "
                + "kept, never dropped by keep; docs/collector.md says how to see, move or delete them)"
        }
        return line
    }
}

extension CollectorPlan {
    /// `[collect] keep` and `keep-hourly`.
    public var retention: Retention { Retention(keep: settings.keep, keepHourly: settings.keepHourly) }

    /// The database as people may see it: the connection string without any password.
    public var safeDatabaseName: String { DatabaseAccess.safeName(conninfo) }
}
