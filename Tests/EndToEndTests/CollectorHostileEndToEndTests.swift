import Foundation
import TestSupport
import Testing

/// The collector under a hostile battery, on a real mosquitto and PostgreSQL, with two
/// honest loggers publishing throughout: a message that once halted the whole fleet (a
/// retained NUL status, a NUL in a hello, a device id of thousands of characters, invalid
/// UTF-8, a 5 MB payload, 2,000 made-up ids) is refused and counted, and never stops the
/// honest rows, also after a restart with the junk still retained.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "mosquitto_sub", "psql")))
struct CollectorHostileEndToEndTests {
    typealias Collector = CollectorEndToEndTests.CollectorProcess
    typealias Fleet = FleetEndToEndTests

    /// A process's CPU seconds so far (user and system), from /proc.
    static func cpuSeconds(_ pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The fields after the command's closing parenthesis; utime and stime are 14 and 15.
        let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
        let ticks = Double(fields[11])! + Double(fields[12])!
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func metrics(_ port: Int) async throws -> [String: Double] {
        let result = try await ChildProcess.run(
            "/usr/bin/curl", ["-sf", "http://127.0.0.1:\(port)/metrics"], environment: [:])
        var values: [String: Double] = [:]
        for line in result.stdout.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
        }
        return values
    }

    static func refused(_ metrics: [String: Double], _ reason: String) -> Double {
        metrics["airloc_collector_rows_refused_total{reason=\"\(reason)\"}"] ?? 0
    }

    @Test func oneBadMessageNeverStopsTheFleet() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        let port = try GPSFake.freePort()
        let collector = try Collector(
            broker: broker, database: database, config: "[collect]\nmetrics = 127.0.0.1:\(port)\n")
        defer { collector.state.remove() }
        var running = try collector.start()
        defer { running.stop() }
        // When each honest row reached the broker (the collector's share of its delay starts there).
        let sub = try #require(ExternalTool.path(of: "mosquitto_sub"))
        let arrivals = try ChildProcess(
            sub,
            [
                "-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-F", "%U %t %p", "-t", "airloc/honest-1/history",
                "-t", "airloc/honest-2/history",
            ],
            environment: ProcessInfo.processInfo.environment)
        defer { arrivals.stop() }
        var worlds: [AirlocWorld] = []
        var loggers: [ChildProcess] = []
        defer { for world in worlds { world.stop() } }
        for index in 1...2 {
            let world = try await AirlocWorld(
                config: CollectorEndToEndTests.config(broker).replacingOccurrences(
                    of: "[mqtt]\n", with: "[mqtt]\ndevice-id = honest-\(index)\n"))
            worlds.append(world)
            loggers.append(try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment))
        }
        try await Poll.until("both loggers' rows stored") {
            try await database.query("SELECT count(DISTINCT device_id) FROM track WHERE device_id LIKE 'honest-%'")
                .trimmingCharacters(in: .whitespacesAndNewlines) == "2"
        }

        // The battery, with the collector's CPU and its stderr measured around it.
        let linesBefore = running.errors.split(separator: "\n").count
        let cpuBefore = try Self.cpuSeconds(running.pid)
        let started = Date()
        let battery = try await ChildProcess.run(
            "/usr/bin/env",
            ["python3", PackagePaths.file("Tests/Clients/mqtt_battery.py").path, "\(broker.port)", "battery"],
            environment: ProcessInfo.processInfo.environment, timeout: 300)
        #expect(battery.status == 0, "\(battery)")
        let ended = Date()
        // Over at least 15 s from its start: the jam this replaces spun for good.
        try await Poll.until("15 s since the battery began") { Date().timeIntervalSince(started) >= 15 }
        let window = Date().timeIntervalSince(started)
        let cpu = (try Self.cpuSeconds(running.pid) - cpuBefore) / window
        let lines = running.errors.split(separator: "\n").count - linesBefore
        #expect(cpu < 0.5, "the collector took \(cpu * 100) % of a core over \(window) s")
        #expect(Double(lines) / window < 20, "\(lines) stderr lines in \(window) s:\n\(running.errors)")

        // Each refusal counted by its reason.
        let counted = try await Self.metrics(port)
        #expect(Self.refused(counted, "bad_status") >= 1, "the retained NUL status")
        #expect(Self.refused(counted, "bad_hello") >= 1, "the NUL in a hello's software")
        #expect(Self.refused(counted, "bad_device") >= 3, "5,000 and 3,000 characters, and a bidi override")
        #expect(Self.refused(counted, "not_utf8") == 1)
        #expect(Self.refused(counted, "too_large") == 1, "the 5 MB payload")
        #expect(Self.refused(counted, "unknown_schema") == 1, "the forged line's row")
        #expect(Self.refused(counted, "not_json") == 2000, "the made-up ids")
        #expect(counted["airloc_collector_database_up"] == 1)
        // No line forged: every line is the collector's own, and the schema's newline escaped.
        let said = running.errors.split(separator: "\n")
        #expect(said.allSatisfy { $0.hasPrefix("airloc: ") }, "\(running.errors)")
        #expect(said.filter { $0.hasPrefix("airloc: collect: connected to PostgreSQL") }.count == 1)

        // The honest rows that reached the broker during the battery were stored within 10 s (p99).
        try await Poll.until("rows of the battery's window stored", deadline: .seconds(60)) {
            let last = arrivals.output.split(separator: "\n").last.flatMap { Double($0.split(separator: " ")[0]) } ?? 0
            return last > ended.timeIntervalSince1970 + 5
        }
        var arrivedAt: [String: Double] = [:]
        for line in arrivals.output.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 2)
            guard fields.count == 3, let at = Double(fields[0]), at >= started.timeIntervalSince1970,
                at <= ended.timeIntervalSince1970 + 5, let row = Fleet.json(String(fields[2])),
                let id = row["id"] as? String, id.hasPrefix("t")
            else { continue }
            let key = "\(fields[1].split(separator: "/")[1]) \(id)"
            if arrivedAt[key] == nil { arrivedAt[key] = at }
        }
        let keys = Set(arrivedAt.keys)
        let storedQuery =
            "SELECT device_id || ' ' || id || ' ' || extract(epoch FROM stored_at) FROM track WHERE device_id LIKE 'honest-%'"
        try await Poll.until("the battery window's honest rows stored", deadline: .seconds(60)) {
            let text = try await database.query(storedQuery)
            let have = Set(
                text.split(separator: "\n").map { $0.split(separator: " ").prefix(2).joined(separator: " ") })
            return keys.isSubset(of: have)
        }
        var storedAt: [String: Double] = [:]
        for line in try await database.query(storedQuery).split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 3 { storedAt["\(fields[0]) \(fields[1])"] = Double(fields[2]) }
        }
        let delays = arrivedAt.map { (storedAt[$0.key] ?? .infinity) - $0.value }
        #expect(!delays.isEmpty, "honest rows published during the battery")
        let p99 = delays.sorted()[min(delays.count - 1, Int(Double(delays.count) * 0.99))]
        #expect(p99 <= 10, "p99 of the honest rows' delay \(p99) s over \(delays.count) rows")

        // A restarted collector hears the junk again (retained) and stores honest rows all the same.
        running.signal(SIGTERM)
        #expect(try await running.wait().status == 0, "\(running.errors)")
        let before = try await CollectorEndToEndTests.storedCount(database)
        running = try collector.start()
        try await Poll.until("honest rows stored after the restart") {
            try await CollectorEndToEndTests.storedCount(database) >= before + 4
        }
        let again = try await Self.metrics(port)
        #expect(Self.refused(again, "bad_status") >= 1 && Self.refused(again, "bad_hello") >= 1, "\(again)")
        try await CollectorEndToEndTests.expectEveryRowStoredOnce(worlds, loggers, database, revisedHour: false)
        running.signal(SIGTERM)
        #expect(try await running.wait().status == 0)
        try await broker.stop()
        try await database.stop()
    }

    /// `[collect] devices = known` closes a fleet on a broker without ACLs: a device not
    /// registered is refused and counted; once `collect register` admits it, its rows are
    /// stored (within the 30 s the collector takes to read the list again).
    @Test func aClosedFleetTakesOnlyRegisteredDevices() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        let port = try GPSFake.freePort()
        let collector = try Collector(
            broker: broker, database: database,
            config: "[collect]\ndevices = known\nmetrics = 127.0.0.1:\(port)\n")
        defer { collector.state.remove() }
        let running = try collector.start()
        defer { running.stop() }
        try await Poll.until("the collector subscribed") { running.errors.contains("subscribed to") }
        let input = CollectorInputEndToEndTests.self
        try await input.publish(broker, "airloc/pi-1/history", input.track(1))
        try await Poll.until("the stranger's row refused") {
            Self.refused(try await Self.metrics(port), "unknown_device") == 1
        }
        #expect(try await CollectorEndToEndTests.storedCount(database) == 0)
        let bad = try await collector.run(["collect", "register", "pi 1"])
        #expect(bad.status == 64 && bad.stderr.contains("not a device name"), "\(bad)")
        let registered = try await collector.run(["collect", "register", "pi-1", "pi-2"])
        #expect(registered.status == 0 && registered.stdout == "registered pi-1\nregistered pi-2\n", "\(registered)")
        #expect(try await collector.run(["collect", "register"]).stdout == "pi-1\npi-2\n")
        let removed = try await collector.run(["collect", "unregister", "pi-2", "pi-3"])
        #expect(removed.stdout == "unregistered pi-2\npi-3 was not registered\n", "\(removed)")
        // Sent again every second, as a device does after its ack-timeout, until the
        // collector has read the list again (it does every 30 s).
        var stored = false
        for _ in 0..<120 where !stored {
            try await input.publish(broker, "airloc/pi-1/history", input.track(1))
            try await Task.sleep(for: .seconds(1))
            stored = try await CollectorEndToEndTests.storedCount(database) == 1
        }
        #expect(stored, "the registered device's row stored: \(running.errors)")
        running.signal(SIGTERM)
        #expect(try await running.wait().status == 0)
        try await broker.stop()
        try await database.stop()
    }
}
