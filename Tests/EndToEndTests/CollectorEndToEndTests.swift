import Foundation
import TestSupport
import Testing

/// `airloc collect` between real loggers and a real PostgreSQL: a real mosquitto, gpsd
/// fed by gpsfake, PostgreSQL started by the test (initdb + pg_ctl on a free port).
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "mosquitto_sub", "psql")))
struct CollectorEndToEndTests {
    typealias Fleet = FleetEndToEndTests

    /// A collector process of its own state directory, reading `broker` into `database`.
    struct CollectorProcess {
        let state: TemporaryDirectory
        let environment: [String: String]

        init(broker: MosquittoBroker, database: PostgresServer, extra: [String: String] = [:]) throws {
            state = try TemporaryDirectory()
            environment = [
                "PATH": "/usr/bin:/bin", "HOME": state.url.path, "XDG_STATE_HOME": state.url.path,
                "XDG_CONFIG_HOME": state.file("config").path, "XDG_CACHE_HOME": state.file("cache").path,
                "AIRLOC_SYSTEM_CONFIG": state.file("none.conf").path,
                "AIRLOC_COLLECT_BROKER": broker.url, "AIRLOC_COLLECT_DATABASE": database.conninfo,
            ].merging(extra) { $1 }
        }

        func start() throws -> ChildProcess {
            try ChildProcess(AirlocBinary.path, ["collect"], environment: environment)
        }

        func status() async throws -> [String: Any] {
            let result = try await AirlocBinary.run(["collect", "status", "--json"], environment: environment)
            return Fleet.json(result.stdout) ?? [:]
        }
    }

    static func deviceID(_ world: AirlocWorld) throws -> String {
        try String(contentsOf: world.home.file("state/airloc/device-id"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every row of the logbook as (id, time) from its own export.
    static func exported(_ world: AirlocWorld) async throws -> [String: String] {
        let export = try await world.run(["log", "export", "--format", "ndjson"])
        var rows: [String: String] = [:]
        for line in export.stdout.split(separator: "\n") {
            guard let row = Fleet.json(String(line)), let id = row["id"] as? String, let time = row["time"] as? String
            else { continue }
            // 2026-12-01T10:00:05Z and 2026-12-01T10:00:05.000Z are one time: milliseconds always.
            rows[id] = time.contains(".") ? time : time.replacingOccurrences(of: "Z", with: ".000Z")
        }
        return rows
    }

    /// The rows PostgreSQL holds for `device`: id → the times stored under it (one each, if
    /// exactly once), in the export's form.
    static func stored(_ database: PostgresServer, _ device: String) async throws -> [String: [String]] {
        var rows: [String: [String]] = [:]
        for table in ["track", "air", "sensor"] {
            let text = try await database.query(
                """
                SELECT id, to_char(time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') FROM \(table)
                WHERE device_id = '\(device)'
                """)
            for line in text.split(separator: "\n") {
                let fields = line.split(separator: "|").map(String.init)
                guard fields.count == 2 else { continue }
                rows[fields[0], default: []].append(fields[1])
            }
        }
        return rows
    }

    static func storedCount(_ database: PostgresServer) async throws -> Int {
        Int(try await database.query("SELECT count(*) FROM track").trimmingCharacters(in: .whitespacesAndNewlines))
            ?? 0
    }

    static func config(_ broker: MosquittoBroker) -> String {
        "[log]\ntrack-interval = 1\n[mqtt]\nurl = \(broker.url)\nposition = exact\nend-to-end = collector\n"
            + "ack-timeout = 2\n"
    }

    /// Three loggers and one collector; the collector is SIGKILLed twice and PostgreSQL
    /// restarted once during the run. Afterwards every row of every logbook is in
    /// PostgreSQL exactly once, at the time the logbook finally holds it, and each
    /// logger's `log status` says nothing is left unstored.
    @Test func everyRowOfThreeLoggersIsStoredExactlyOnceThroughKillsAndARestart() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        let collector = try CollectorProcess(broker: broker, database: database)
        defer { collector.state.remove() }
        var running = try collector.start()
        var worlds: [AirlocWorld] = []
        var loggers: [ChildProcess] = []
        defer { for world in worlds { world.stop() } }
        for _ in 0..<3 {
            let world = try await AirlocWorld(config: Self.config(broker))
            worlds.append(world)
            loggers.append(try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment))
        }
        func storedGrows(_ what: String) async throws {
            let before = try await Self.storedCount(database)
            do {
                try await Poll.until(what) { try await Self.storedCount(database) >= before + 6 }
            } catch {
                throw FixtureError("\(error)\n--- collector\n\(running.errors)\n--- logger\n\(loggers[0].errors)")
            }
        }
        func loggedGrows(_ what: String) async throws {
            let before = try await Fleet.status(worlds[0])["track_rows"] as? Int ?? 0
            try await Fleet.waitForStatus(worlds[0], what, logger: loggers[0]) {
                ($0["track_rows"] as? Int ?? 0) >= before + 3
            }
        }
        try await storedGrows("rows stored by the first collector")
        running.signal(SIGKILL)
        _ = try await running.wait()
        try await loggedGrows("rows logged while no collector runs")
        running = try collector.start()
        try await storedGrows("rows stored by the second collector")
        try await database.stop()
        try await loggedGrows("rows logged while PostgreSQL is down")
        try await database.start()
        try await storedGrows("rows stored after PostgreSQL's restart")
        running.signal(SIGKILL)
        _ = try await running.wait()
        try await loggedGrows("rows logged after the second kill")
        running = try collector.start()
        // No more fixes: the loggers stop writing track rows, and the collector catches up.
        for world in worlds { world.gpsd.stop() }
        for (world, logger) in zip(worlds, loggers) {
            try await Fleet.waitForStatus(world, "every row stored", logger: logger) {
                ($0["unstored"] as? Int) == 0 && ($0["unsent"] as? Int) == 0
                    && ($0["collector_ack"] as? [String: Any]) != nil
            }
        }
        for logger in loggers {
            logger.signal(SIGTERM)
            #expect(try await logger.wait().status == 0)
        }
        for world in worlds {
            let device = try Self.deviceID(world)
            let logged = try await Self.exported(world)
            let stored = try await Self.stored(database, device)
            #expect(logged.count >= 5, "\(device) logged \(logged.count) rows")
            let missing = logged.keys.filter { stored[$0] == nil }.sorted()
            let twice = stored.filter { $0.value.count != 1 }.keys.sorted()
            let extra = stored.keys.filter { logged[$0] == nil }.sorted()
            let differing = logged.filter { stored[$0.key] != nil && stored[$0.key]?.first != $0.value }
            #expect(missing.isEmpty, "\(device): not stored \(missing.prefix(10))")
            #expect(twice.isEmpty, "\(device): stored more than once \(twice.prefix(10))")
            #expect(extra.isEmpty, "\(device): stored but not in the logbook \(extra.prefix(10))")
            #expect(differing.isEmpty, "\(device): a time other than the logbook's \(differing.prefix(5))")
        }
        let status = try await collector.status()
        let devices = status["devices"] as? [[String: Any]] ?? []
        #expect(
            Set(devices.compactMap { $0["device_id"] as? String }) == Set(try worlds.map(Self.deviceID)), "\(status)")
        for device in devices {
            // The loggers stopped cleanly: each said so on its status topic, and the collector kept it.
            #expect(device["status"] as? String == "offline", "\(device)")
            #expect((device["rows"] as? [String: Any])?["track"] as? Int ?? 0 >= 5, "\(device)")
        }
        let service = status["collector"] as? [String: Any]
        #expect(service?["running"] as? Bool == true && service?["database"] as? String == "connected", "\(status)")
        running.signal(SIGTERM)
        let stopped = try await running.wait()
        #expect(stopped.status == 0, "\(stopped)")
        try await broker.stop()
        try await database.stop()
    }
}
