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

        init(
            broker: MosquittoBroker, database: PostgresServer, config: String? = nil, extra: [String: String] = [:]
        ) throws {
            state = try TemporaryDirectory()
            if let config {
                let directory = state.file("config/airloc")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try config.write(to: directory.appendingPathComponent("airloc.conf"), atomically: true, encoding: .utf8)
            }
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

        func run(_ arguments: [String]) async throws -> ChildProcess.Result {
            try await AirlocBinary.run(arguments, environment: environment)
        }
    }

    /// The logger's device id: `[mqtt] device-id` where its configuration sets one, else the
    /// random one it keeps in its state directory.
    static func deviceID(_ world: AirlocWorld) throws -> String {
        let config = (try? String(contentsOf: world.home.file("config/airloc/airloc.conf"), encoding: .utf8)) ?? ""
        if let line = config.split(separator: "\n").first(where: { $0.hasPrefix("device-id = ") }) {
            return String(line.dropFirst("device-id = ".count))
        }
        return try String(contentsOf: world.home.file("state/airloc/device-id"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every row of the logbook as id → "time source" from its own export.
    static func exported(_ world: AirlocWorld) async throws -> [String: String] {
        let export = try await world.run(["log", "export", "--format", "ndjson"])
        var rows: [String: String] = [:]
        for line in export.stdout.split(separator: "\n") {
            guard let row = Fleet.json(String(line)), let id = row["id"] as? String, let time = row["time"] as? String
            else { continue }
            // 2026-12-01T10:00:05Z and 2026-12-01T10:00:05.000Z are one time: milliseconds always.
            let when = time.contains(".") ? time : time.replacingOccurrences(of: "Z", with: ".000Z")
            // An air row's source tells a pending hour from the settled one it became.
            rows[id] = when + " " + (row["source"] as? String ?? "")
        }
        return rows
    }

    /// The rows PostgreSQL holds for `device`: id → the "time source" stored under it (one
    /// each, if exactly once), in the export's form.
    static func stored(_ database: PostgresServer, _ device: String) async throws -> [String: [String]] {
        var rows: [String: [String]] = [:]
        for table in ["track", "air", "sensor"] {
            let text = try await database.query(
                """
                SELECT id, to_char(time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
                       || ' ' || coalesce(payload->>'source', '') FROM \(table)
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

    /// The collector schema's version as docs/collector.md documents it ("The schema
    /// (version N)"): what a migrated database holds.
    static var schemaVersion: String {
        let document = (try? String(contentsOf: PackagePaths.file("docs/collector.md"), encoding: .utf8)) ?? ""
        guard let range = document.range(of: "## The schema (version ") else { return "?" }
        return String(document[range.upperBound...].prefix { $0.isNumber })
    }

    static func storedCount(_ database: PostgresServer) async throws -> Int {
        Int(try await database.query("SELECT count(*) FROM track").trimmingCharacters(in: .whitespacesAndNewlines))
            ?? 0
    }

    static func config(_ broker: MosquittoBroker, ackTimeout: Int = 2) -> String {
        "[log]\ntrack-interval = 1\n[mqtt]\nurl = \(broker.url)\nposition = exact\nend-to-end = collector\n"
            + "ack-timeout = \(ackTimeout)\n"
    }

    /// Three loggers publishing to `broker` with `end-to-end = collector`, running. The first
    /// logger's air service fails at first: its hour is logged pending, published, then
    /// settled and published again with a newer revision.
    static func startLoggers(_ broker: MosquittoBroker, ackTimeout: Int = 2) async throws -> (
        worlds: [AirlocWorld], loggers: [ChildProcess]
    ) {
        var worlds: [AirlocWorld] = []
        var loggers: [ChildProcess] = []
        for index in 0..<3 {
            let faults = index == 0 ? [#"{"path": "/v1/air-quality", "status": 500, "times": 1}"#] : []
            let world = try await AirlocWorld(faults: faults, config: Self.config(broker, ackTimeout: ackTimeout))
            worlds.append(world)
            loggers.append(try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment))
        }
        return (worlds, loggers)
    }

    /// The loggers stop logging fixes; each has every row stored and acknowledged, and stops
    /// cleanly. Then every row of every logbook is in `database` exactly once, as the logbook
    /// finally holds it, the first logger's revised hour at its newer revision.
    static func expectEveryRowStoredOnce(
        _ worlds: [AirlocWorld], _ loggers: [ChildProcess], _ database: PostgresServer, revisedHour: Bool = true
    ) async throws {
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
            // A device that heard a smaller `through` than before says the store forgot rows.
            #expect(!logger.errors.contains("holds fewer rows than it acknowledged"), "\(logger.errors)")
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
            #expect(differing.isEmpty, "\(device): content other than the logbook's \(differing.prefix(5))")
        }
        guard revisedHour else { return }
        // The first hour was pending (the service failed once) and settled afterwards: live
        // when the retry came within the hour, back-filled when the clock had crossed into
        // the next one meanwhile (a run across a full hour, as on a busy machine at 08:00).
        let settled = try await database.query(
            "SELECT revision || ' ' || source FROM air WHERE device_id = '\(try Self.deviceID(worlds[0]))' "
                + "ORDER BY time LIMIT 1")
        #expect(
            ["1 live\n", "1 backfill\n"].contains(settled),
            "the pending hour is stored as it settled, at its newer revision: \(settled)")
    }

    /// Three loggers and one collector; the collector is SIGKILLed twice and PostgreSQL
    /// restarted once during the run. Afterwards every row of every logbook is in
    /// PostgreSQL exactly once, as the logbook finally holds it (its time, and the settled
    /// hour rather than the pending one first published), and each
    /// logger's `log status` says nothing is left unstored.
    @Test func everyRowOfThreeLoggersIsStoredExactlyOnceThroughKillsAndARestart() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        // Small batches: while PostgreSQL is down the collector fills its four and pauses.
        let collector = try CollectorProcess(
            broker: broker, database: database, config: "[collect]\nbatch = 5\nkeep = 400d\n")
        defer { collector.state.remove() }
        var running = try collector.start()
        let (worlds, loggers) = try await Self.startLoggers(broker)
        defer { for world in worlds { world.stop() } }
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
        let paused = running
        try await Poll.until("the collector pausing") { paused.errors.contains("pausing: ") }
        let outage = try await collector.status()
        let down = outage["collector"] as? [String: Any]
        #expect(down?["database"] as? String == "down" && down?["database_error"] is String, "\(outage)")
        #expect(outage["database_error"] is String, "collect status says it cannot read the devices: \(outage)")
        try await database.start()
        try await storedGrows("rows stored after PostgreSQL's restart")
        running.signal(SIGKILL)
        _ = try await running.wait()
        try await loggedGrows("rows logged after the second kill")
        running = try collector.start()
        // No more fixes: the loggers stop writing track rows, and the collector catches up.
        try await Self.expectEveryRowStoredOnce(worlds, loggers, database)
        // The loggers stopped cleanly: each said so on its status topic, and the collector
        // keeps it with its next batch (waited for: that is an event, not a moment).
        try await Poll.until("every device offline in collect status") {
            let devices = (try await collector.status())["devices"] as? [[String: Any]] ?? []
            return devices.count == 3 && devices.allSatisfy { $0["status"] as? String == "offline" }
        }
        let status = try await collector.status()
        let devices = status["devices"] as? [[String: Any]] ?? []
        #expect(
            Set(devices.compactMap { $0["device_id"] as? String }) == Set(try worlds.map(Self.deviceID)), "\(status)")
        for device in devices {
            #expect(device["status"] as? String == "offline", "\(device)")
            #expect((device["rows"] as? [String: Any])?["track"] as? Int ?? 0 >= 5, "\(device)")
        }
        let service = status["collector"] as? [String: Any]
        #expect(service?["running"] as? Bool == true && service?["database"] as? String == "connected", "\(status)")
        // The rows are this month's; it and the next have partitions; `keep` is said.
        let storage = status["storage"] as? [String: Any] ?? [:]
        let thisMonth = String(ISO8601DateFormatter().string(from: Date()).prefix(7))
        #expect((storage["months"] as? [String])?.first == thisMonth, "\(storage)")
        #expect(storage["keep_seconds"] as? Int == 400 * 86_400 && storage["rows_outside_months"] as? Int == 0)
        #expect((storage["next_drop"] as? [String: Any])?["month"] as? String == thisMonth, "\(storage)")
        running.signal(SIGTERM)
        let stopped = try await running.wait()
        #expect(stopped.status == 0, "\(stopped)")
        // A stopped collector's connections are not reported as if it still held them.
        let after = (try await collector.status())["collector"] as? [String: Any]
        #expect(
            after?["running"] as? Bool == false && after?["database"] as? String == "not running",
            "\(String(describing: after))")
        #expect(after?["broker"] as? String == "not running")
        try await broker.stop()
        try await database.stop()
    }
}

/// The collector against what a device should never send, and against rows that change:
/// rows published by hand (mosquitto_pub) into a real broker and a real PostgreSQL.
@Suite(.enabled(if: ExternalTool.available("mosquitto_pub", "mosquitto_sub", "psql")))
struct CollectorInputEndToEndTests {
    typealias Collector = CollectorEndToEndTests.CollectorProcess

    static func publish(_ broker: MosquittoBroker, _ topic: String, _ payload: String) async throws {
        let publish = try #require(ExternalTool.path(of: "mosquitto_pub"))
        let result = try await ChildProcess.run(
            publish, ["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-t", topic, "-s"],
            environment: ProcessInfo.processInfo.environment, stdin: payload)
        #expect(result.status == 0, "\(result)")
    }

    static func track(_ id: Int, latitude: Double = 52.52, revision: Int = 0, extra: String = "") -> String {
        #"{"schema":"airloc.log/1","revision":\#(revision),\#(extra)"id":"t\#(id)","kind":"track","time":"2026-11-30T10:00:0\#(id)Z","latitude":\#(latitude),"longitude":13.405,"time_source":"gps","provider":"gpsd","segment":1}"#
    }

    static func storedTrack(_ database: PostgresServer) async throws -> [String] {
        try await database.query(
            "SELECT device_id || ' ' || id || ' ' || latitude || ' ' || revision FROM track ORDER BY 1"
        )
        .split(separator: "\n").map(String.init)
    }

    /// A broker, a PostgreSQL and a collector between them, subscribed: what each test here
    /// starts from. ``stop()`` ends the collector as systemd does (SIGTERM, exit 0), then the servers.
    struct Bench {
        let broker: MosquittoBroker
        let database: PostgresServer
        let collector: Collector
        let running: ChildProcess

        static func start() async throws -> Bench {
            let broker = try await MosquittoBroker.start()
            let database = try await PostgresServer.start()
            let collector = try Collector(broker: broker, database: database)
            let running = try collector.start()
            try await Poll.until("the collector subscribed") { running.errors.contains("subscribed to") }
            return Bench(broker: broker, database: database, collector: collector, running: running)
        }

        /// The fleet's page (`airloc serve`, `[serve] source = collector`) over this bench's
        /// database, with `extra` `[serve]` lines; listening, on the port returned.
        func fleetPage(_ extra: String = "") async throws -> (server: ChildProcess, port: Int) {
            let config = collector.state.file("config/airloc")
            try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
            try "[serve]\nsource = collector\nlisten = 127.0.0.1:0\n\(extra)".write(
                to: config.appendingPathComponent("airloc.conf"), atomically: true, encoding: .utf8)
            let server = try ChildProcess(AirlocBinary.path, ["serve"], environment: collector.environment)
            return (server, try await ServeEndToEndTests.port(of: server))
        }

        func stop() async throws {
            defer { collector.state.remove() }
            running.signal(SIGTERM)
            let stopped = try await running.wait()
            #expect(stopped.status == 0, "\(stopped)")
            try await broker.stop()
            try await database.stop()
        }
    }

    /// A broker that is not there when the collector starts: said once on stderr when it
    /// begins (not at each retry), and once when the broker answers.
    @Test func brokerTroubleIsSaidOnceWhenItBeginsAndOnceWhenItEnds() async throws {
        let broker = try await MosquittoBroker.prepare()
        let database = try await PostgresServer.start()
        let collector = try Collector(broker: broker, database: database)
        defer { collector.state.remove() }
        let running = try collector.start()
        defer { running.stop() }
        try await Poll.until("the trouble said") { running.errors.contains("cannot reach the broker") }
        try await broker.start()
        try await Poll.until("the end of it said") { running.errors.contains("the broker answers again") }
        #expect(running.errors.occurrences(of: "cannot reach the broker") == 1, "\(running.errors)")
        running.signal(SIGTERM)
        #expect(try await running.wait().status == 0)
        try await broker.stop()
        try await database.stop()
    }

    /// A second collector on the same state directory (so the same default client id,
    /// which would take the first one's broker session) is refused at once with 75,
    /// naming the first; the first goes on storing.
    @Test func aSecondCollectorIsRefused() async throws {
        let bench = try await Bench.start()
        let second = try await bench.collector.run(["collect"])
        #expect(second.status == 75, "\(second)")
        #expect(second.stderr.contains("another collector (process \(bench.running.pid))"), "\(second.stderr)")
        try await Self.publish(bench.broker, "airloc/pi/history", Self.track(1))
        try await Poll.until("the first collector still storing") {
            try await CollectorEndToEndTests.storedCount(bench.database) == 1
        }
        try await bench.stop()
    }

    /// Malformed, hostile and foreign messages are refused and counted; the good rows
    /// around them are stored and acknowledged. A row of a clock decades ahead is not
    /// refused: it is stored (in the default partition), or it would be asked for forever.
    @Test func badRowsAreCountedAndNeverStopTheOthers() async throws {
        let bench = try await Bench.start()
        let (broker, database, collector, running) = (bench.broker, bench.database, bench.collector, bench.running)
        let acks = try await MQTTSubscriber.start(broker: broker, id: "acks", topics: ["airloc/+/ack"])
        try await Self.publish(broker, "airloc/good/history", Self.track(1))
        try await Self.publish(broker, "airloc/bad/history", "not json at all")
        try await Self.publish(
            broker, "airloc/bad/history", "{\"pad\":\"" + String(repeating: "x", count: 100_000) + "\"}")
        try await Self.publish(
            broker, "airloc/bad/history", Self.track(1).replacingOccurrences(of: "log/1", with: "log/7"))
        try await Self.publish(
            broker, "airloc/bad/history", Self.track(2).replacingOccurrences(of: "2026-11-30", with: "2099-01-01"))
        try await Self.publish(
            broker, "airloc/bad/history", Self.track(3).replacingOccurrences(of: "52.52", with: "\"north\""))
        // Mallory writes as herself but claims to be the good device.
        try await Self.publish(broker, "airloc/mallory/history", Self.track(9, extra: #""device":"good","#))
        try await Self.publish(broker, "airloc/good/history", Self.track(2))
        try await Poll.until("both good rows stored") { try await Self.storedTrack(database).count >= 3 }
        try await Poll.until("the good device's acknowledgement") {
            acks.messages.contains { $0.topic == "airloc/good/ack" && $0.payload.contains(#""track":2"#) }
        }
        #expect(try await Self.storedTrack(database) == ["bad t2 52.52 0", "good t1 52.52 0", "good t2 52.52 0"])
        #expect(
            try await database.query("SELECT tableoid::regclass::text FROM track WHERE device_id = 'bad'")
                .trimmingCharacters(in: .whitespacesAndNewlines) == "track_default")
        try await Poll.until("five refusals counted") {
            ((try await collector.status())["collector"] as? [String: Any])?["refused"] as? Int == 5
        }
        #expect(running.isRunning, "bad input never stops the collector")
        try await acks.stop()
        try await bench.stop()
        #expect(running.errors.contains("a row of another device ('good')"), "\(running.errors)")
    }

    /// A row published again with a newer revision replaces what is stored; an older
    /// revision arriving after it (a late replay) changes nothing; the acknowledgement
    /// lists the revision stored.
    @Test func anOlderRevisionNeverReplacesANewerOne() async throws {
        let bench = try await Bench.start()
        let (broker, database) = (bench.broker, bench.database)
        let acks = try await MQTTSubscriber.start(broker: broker, id: "acks", topics: ["airloc/+/ack"])
        try await Self.publish(broker, "airloc/pi/history", Self.track(1, latitude: 52.5))
        try await Poll.until("revision 0 stored") { try await Self.storedTrack(database) == ["pi t1 52.5 0"] }
        try await Self.publish(broker, "airloc/pi/history", Self.track(1, latitude: 52.6, revision: 2))
        try await Poll.until("revision 2 stored") { try await Self.storedTrack(database) == ["pi t1 52.6 2"] }
        try await Self.publish(broker, "airloc/pi/history", Self.track(1, latitude: 52.7, revision: 1))
        try await Self.publish(broker, "airloc/pi/history", Self.track(2))
        try await Poll.until("t2 stored") { try await Self.storedTrack(database).count == 2 }
        #expect(try await Self.storedTrack(database) == ["pi t1 52.6 2", "pi t2 52.52 0"], "the late replay lost")
        try await Poll.until("the acknowledgement listing revision 2") {
            acks.messages.contains { $0.topic == "airloc/pi/ack" && $0.payload.contains(#""revised":{"t1":2}"#) }
        }
        try await acks.stop()
        try await bench.stop()
    }

    /// The SQL docs/collector.md gives for what people ask runs against the collector's
    /// own tables and answers from the rows of two devices.
    @Test func theQueriesTheDocumentationGivesRun() async throws {
        let bench = try await Bench.start()
        let (broker, database) = (bench.broker, bench.database)
        let now = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-600))
        let hour = String(now.prefix(13)) + ":00:00Z"
        for device in ["pi-1", "pi-2"] {
            for id in 1...3 {
                try await Self.publish(
                    broker, "airloc/\(device)/history",
                    Self.track(id).replacingOccurrences(of: "2026-11-30T10:00:0\(id)Z", with: now))
            }
            // A clock decades ahead: the default partition's row.
            try await Self.publish(
                broker, "airloc/\(device)/history",
                Self.track(4).replacingOccurrences(of: "2026-11-30T10:00:04Z", with: "2099-01-01T00:00:00Z"))
            try await Self.publish(
                broker, "airloc/\(device)/history",
                #"{"schema":"airloc.log/1","id":"a1","kind":"air","time":"\#(hour)","latitude":52.52,"longitude":13.4,"us_aqi":41,"category":"good","pm2_5":8.8,"source":"live","segment":1}"#
            )
            try await Self.publish(
                broker, "airloc/\(device)/history",
                #"{"schema":"airloc.log/1","id":"s1","kind":"sensor","time":"\#(now)","latitude":52.52,"longitude":13.4,"model":"sds011","pm2_5":11.5,"pm10":20,"samples":10,"flags":"","segment":1}"#
            )
        }
        try await Poll.until("both devices' rows stored") {
            try await database.query("SELECT (SELECT count(*) FROM track) || ' ' || (SELECT count(*) FROM sensor)")
                == "8 2\n"
        }
        let document = try String(contentsOf: PackagePaths.file("docs/collector.md"), encoding: .utf8)
        // The role of the fleet page is FleetPageEndToEndTests' (it serves through it).
        let queries = document.components(separatedBy: "```sql\n").dropFirst().compactMap {
            $0.components(separatedBy: "```").first
        }.filter { !$0.hasPrefix("CREATE ROLE") }
        #expect(queries.count == 9)
        for query in queries {
            let answer = try await database.query(query)
            if query.contains("interval '1 hour'") {
                #expect(answer.isEmpty, "no device is silent yet: \(answer)")
            } else if query.hasPrefix("DELETE") {
                #expect(answer.isEmpty, "nothing stored 30 days ago: \(answer)")
            } else {
                #expect(answer.contains("pi-1") && answer.contains("pi-2"), "\(query)\n→ \(answer)")
            }
        }
        try await bench.stop()
    }

    /// What cannot work as configured stops at once with exit 78 and says why.
    @Test func aNewerSchemaAndAReadablePasswordFileAreConfigurationErrors() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        let collector = try Collector(broker: broker, database: database)
        defer { collector.state.remove() }
        _ = try await database.query(
            "CREATE TABLE airloc_collector (version integer NOT NULL); INSERT INTO airloc_collector VALUES (99)")
        let newer = try await collector.run(["collect"])
        #expect(newer.status == 78, "\(newer)")
        #expect(newer.stderr.contains("collector schema 99, newer than this airloc knows"), "\(newer.stderr)")
        #expect(try await database.query("SELECT count(*) FROM pg_tables WHERE tablename = 'track'") == "0\n")

        let secret = collector.state.file("db-password")
        try "hunter2\n".write(to: secret, atomically: true, encoding: .utf8)
        chmod(secret.path, 0o644)
        let config = collector.state.file("config/airloc")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "[collect]\npassword-file = \(secret.path)\n".write(
            to: config.appendingPathComponent("airloc.conf"), atomically: true, encoding: .utf8)
        let readable = try await collector.run(["collect"])
        #expect(readable.status == 78, "\(readable)")
        #expect(readable.stderr.contains("chmod 600"), "\(readable.stderr)")
        #expect(!readable.stderr.contains("hunter2") && !readable.stdout.contains("hunter2"))

        // Database settings that cannot work stop it at the start, as refused broker
        // credentials do: no database of that name; a role that may not create the tables.
        try "".write(to: config.appendingPathComponent("airloc.conf"), atomically: true, encoding: .utf8)
        var elsewhere = collector.environment
        elsewhere["AIRLOC_COLLECT_DATABASE"] = database.conninfo.replacingOccurrences(
            of: "dbname=postgres", with: "dbname=no_such_db")
        let noDatabase = try await AirlocBinary.run(["collect"], environment: elsewhere)
        #expect(noDatabase.status == 78, "\(noDatabase)")
        #expect(noDatabase.stderr.contains("does not exist"), "\(noDatabase.stderr)")
        // doctor on the collector's host says the same, and that the right database answers.
        func doctor(_ environment: [String: String]) async throws -> (Int32, [String: [String: Any]]) {
            let doctor = try await AirlocBinary.run(["doctor", "--json"], environment: environment)
            let checks = CollectorEndToEndTests.Fleet.json(doctor.stdout)?["checks"] as? [[String: Any]] ?? []
            return (
                doctor.status,
                Dictionary(checks.map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
            )
        }
        let (wrongStatus, wrong) = try await doctor(elsewhere)
        #expect(wrongStatus == 78 && wrong["collector database"]?["status"] as? String == "fail", "\(wrong)")
        // A host that only collects: its broker and database are checked, not gpsd or a
        // location it does not have; all being well, doctor passes.
        let (rightStatus, right) = try await doctor(collector.environment)
        #expect(rightStatus == 0, "\(right)")
        #expect(right["collector database"]?["status"] as? String == "ok", "\(right)")
        #expect(right["collector broker"]?["status"] as? String == "ok", "\(right)")
        #expect(right["device checks"]?["status"] as? String == "ok", "\(right)")
        #expect(right.keys.allSatisfy { !$0.contains("gpsd") && !$0.contains("location") }, "\(right.keys)")
        var unreachable = collector.environment
        unreachable["AIRLOC_COLLECT_BROKER"] = "mqtt://127.0.0.1:\(try GPSFake.freePort())"
        let (brokerStatus, noBroker) = try await doctor(unreachable)
        #expect(brokerStatus == 69 && noBroker["collector broker"]?["status"] as? String == "fail", "\(noBroker)")

        // A role that must give its password: the wrong one stops the collector at the
        // start (78), doctor says the same; the right one is accepted. Neither is printed.
        try await database.requirePassword(role: "keeper", password: "right-horse")
        var keeper = collector.environment
        keeper["AIRLOC_COLLECT_DATABASE"] = database.conninfo.replacingOccurrences(
            of: "user=postgres", with: "user=keeper")
        try "wrong-horse\n".write(to: secret, atomically: true, encoding: .utf8)
        try "[collect]\npassword-file = \(secret.path)\n".write(
            to: config.appendingPathComponent("airloc.conf"), atomically: true, encoding: .utf8)
        chmod(secret.path, 0o600)
        let wrongPassword = try await AirlocBinary.run(["collect"], environment: keeper)
        #expect(wrongPassword.status == 78, "\(wrongPassword)")
        #expect(wrongPassword.stderr.contains("password authentication failed"), "\(wrongPassword.stderr)")
        #expect(!wrongPassword.stderr.contains("wrong-horse") && !wrongPassword.stdout.contains("wrong-horse"))
        let (refusedStatus, refused) = try await doctor(keeper)
        #expect(refusedStatus == 78 && refused["collector database"]?["status"] as? String == "fail", "\(refused)")
        try "right-horse\n".write(to: secret, atomically: true, encoding: .utf8)
        chmod(secret.path, 0o600)
        let (acceptedStatus, accepted) = try await doctor(keeper)
        #expect(acceptedStatus == 0 && accepted["collector database"]?["status"] as? String == "ok", "\(accepted)")
        try "".write(to: config.appendingPathComponent("airloc.conf"), atomically: true, encoding: .utf8)
        _ = try await database.query("DROP TABLE airloc_collector; CREATE ROLE weak LOGIN")
        elsewhere["AIRLOC_COLLECT_DATABASE"] = database.conninfo.replacingOccurrences(
            of: "user=postgres", with: "user=weak")
        let weak = try await AirlocBinary.run(["collect"], environment: elsewhere)
        #expect(weak.status == 78, "\(weak)")
        #expect(weak.stderr.contains("privileges"), "\(weak.stderr)")

        var without = collector.environment
        without["AIRLOC_COLLECT_DATABASE"] = nil
        let missing = try await AirlocBinary.run(["collect", "status"], environment: without)
        #expect(missing.status == 78 && missing.stderr.contains("[collect] database is not set"), "\(missing)")
        try await broker.stop()
        try await database.stop()
    }
}
