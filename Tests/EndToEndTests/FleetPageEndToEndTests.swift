import Foundation
import TestSupport
import Testing

/// The fleet's page (`[serve] source = collector`) over real parts: three loggers on gpsd
/// fed by gpsfake publish to a real mosquitto, `airloc collect` stores them in a real
/// PostgreSQL, and `airloc serve` reads that database; the page runs in headless Chromium
/// (Tests/Clients/fleet_page.py).
@Suite(
    .enabled(
        if: ExternalTool.available("gpsfake", "python3", "mosquitto_sub", "psql", "chromedriver", "curl", "promtool")))
struct FleetPageEndToEndTests {
    typealias Stored = CollectorEndToEndTests

    /// `GET path` of the server on `port` (with `password` as HTTP Basic): status and body.
    static func get(_ port: Int, _ path: String, password: String? = nil) async throws -> (status: Int, body: String) {
        let auth = password.map { ["-u", "airloc:\($0)"] } ?? []
        let result = try await ChildProcess.run(
            "/usr/bin/env",
            ["curl", "-sS", "--max-time", "60", "-w", "\n%{http_code}"] + auth + ["http://127.0.0.1:\(port)\(path)"],
            environment: [:])
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    static func json(_ text: String) -> Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8)) }

    /// Three loggers, one collector, one fleet page: a marker per device where PostgreSQL
    /// says it last was, a device's day drawn, the next position arriving live; a share
    /// link's page shows its device alone. Then `/api/track` against the logger's own
    /// `log export --format geojson`, and the share link's rules with a password set.
    @Test func theFleetPageShowsEveryDeviceItsDayAndNewPositionsLive() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        let collector = try Stored.CollectorProcess(broker: broker, database: database)
        defer { collector.state.remove() }
        let running = try collector.start()
        var worlds: [AirlocWorld] = []
        var loggers: [ChildProcess] = []
        defer { for world in worlds { world.stop() } }
        for index in 0..<3 {
            let logs = try TemporaryDirectory()
            let file = logs.file("journey.nmea")
            let latitude = 52.50 + 0.02 * Double(index)
            try await SyntheticTrack.writeJourney(
                from: (latitude, 13.40), to: (latitude + 0.005, 13.405), to: file)
            let world = try await AirlocWorld(log: file, keeping: logs, config: Stored.config(broker))
            worlds.append(world)
            loggers.append(try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment))
        }
        try await Poll.until("every device's rows stored") {
            let text = try await database.query("SELECT count(DISTINCT device_id) FROM track")
            return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) == 3 || !running.isRunning
        }
        #expect(running.isRunning, "the collector: \(running.errors)")
        var devices: [String] = []
        for world in worlds { devices.append(try Stored.deviceID(world)) }

        // serve reads through the role docs/collector.md grants (with the cluster's trust
        // for local connections, no password is asked).
        let document = try String(contentsOf: PackagePaths.file("docs/collector.md"), encoding: .utf8)
        let grants = try #require(
            document.components(separatedBy: "```sql\n").first { $0.hasPrefix("CREATE ROLE airloc_page") }?
                .components(separatedBy: "```").first)
        _ = try await database.query(grants.replacingOccurrences(of: "DATABASE airloc", with: "DATABASE postgres"))
        // The page's host needs no broker: only the database, through that role.
        let page = collector.environment.filter { $0.key != "AIRLOC_COLLECT_BROKER" }.merging(
            [
                "AIRLOC_COLLECT_DATABASE": database.conninfo.replacingOccurrences(
                    of: "user=postgres", with: "user=airloc_page")
            ]
        ) { $1 }
        func share(_ arguments: [String]) async throws -> ChildProcess.Result {
            try await AirlocBinary.run(["serve", "share"] + arguments, environment: page)
        }
        let config = collector.state.file("config/airloc")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "[serve]\nsource = collector\nlisten = 127.0.0.1:0\n".write(
            to: config.appendingPathComponent("airloc.conf"), atomically: true, encoding: .utf8)
        var server = try ChildProcess(AirlocBinary.path, ["serve"], environment: page)
        var port = try await ServeEndToEndTests.port(of: server)
        // doctor on that host checks the database alone, and finds it.
        let doctor = try await AirlocBinary.run(["doctor", "--json"], environment: page)
        let checks = (Self.json(doctor.stdout) as? [String: Any])?["checks"] as? [[String: Any]] ?? []
        let databaseCheck = checks.first { $0["name"] as? String == "collector database" }
        #expect(doctor.status == 0 && databaseCheck?["status"] as? String == "ok", "\(doctor)")
        let detail = databaseCheck?["detail"] as? String ?? ""
        #expect(detail.contains("collector schema \(CollectorEndToEndTests.schemaVersion))"), "\(detail)")
        let made = try await share([devices[1], "--since", "1h", "--json"])
        #expect(made.status == 0, "\(made)")
        let link = (Self.json(made.stdout) as? [String: Any]) ?? [:]
        let token = (link["url"] as? String)?.components(separatedBy: "share=").last ?? ""

        let browser = try await ChildProcess.run(
            "/usr/bin/python3",
            [PackagePaths.file("Tests/Clients/fleet_page.py").path, "\(port)", collector.state.url.path, "3", token],
            environment: [:], timeout: 600)
        #expect(browser.status == 0, "\(browser)")
        let seen = (Self.json(browser.stdout) as? [String: Any]) ?? [:]
        let markers = seen["markers"] as? [String: [String: Any]] ?? [:]
        #expect(seen["marker_paths"] as? Int == 3, "\(seen)")
        #expect(Set(markers.keys) == Set(devices), "\(markers.keys) against \(devices)")
        #expect(seen["list"] as? [String] == devices.sorted(), "\(seen)")
        // Each marker is where PostgreSQL holds that device's newest fix of the time it shows.
        for (device, marker) in markers {
            let time = marker["time"] as? String ?? ""
            let stored = try await database.query(
                """
                SELECT latitude || ' ' || longitude FROM track WHERE device_id = '\(device)'
                AND time = '\(time)'::timestamptz
                """
            ).split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            #expect(stored.count == 2, "\(device) at \(time): \(stored)")
            if stored.count == 2 {
                #expect(abs((marker["lat"] as? Double ?? 0) - stored[0]) < 1e-9, "\(device): \(marker) vs \(stored)")
                #expect(abs((marker["lon"] as? Double ?? 0) - stored[1]) < 1e-9, "\(device): \(marker) vs \(stored)")
            }
        }
        #expect((seen["day_paths"] as? Int ?? 0) >= 1 && (seen["day_points"] as? Int ?? 0) >= 2, "\(seen)")
        #expect((seen["chosen_class"] as? String ?? "").contains("chosen"), "\(seen)")
        #expect(seen["same_load"] as? String == "yes", "a newer position arrived without a reload: \(seen)")
        // Measured, not asserted: from a row's storing to its marker on the page (the browser
        // looks every 0.2 s).
        let later = seen["markers_later"] as? [String: [String: Any]] ?? [:]
        if let moved = later.first(where: {
            ($0.value["time"] as? String ?? "") > (markers[$0.key]?["time"] as? String ?? "")
        }),
            let seenAt = seen["later_seen_ms"] as? Double,
            let stored = Double(
                try await database.query(
                    """
                    SELECT extract(epoch FROM stored_at) FROM track WHERE device_id = '\(moved.key)'
                    AND time = '\(moved.value["time"] as? String ?? "")'::timestamptz
                    """
                ).trimmingCharacters(in: .whitespacesAndNewlines))
        {
            print("note: a stored row reached the fleet page \(Int(seenAt - stored * 1000)) ms after it was stored")
        }
        #expect((seen["errors"] as? [String]) == [], "the browser's console: \(seen["errors"] ?? "?")")
        #expect((seen["share_day_paths"] as? Int ?? 0) >= 1, "the share link's day: \(seen)")
        #expect(seen["share_markers"] as? Int == 0 && seen["share_list"] as? Int == 0, "one device only: \(seen)")
        #expect((seen["share_title"] as? String ?? "").hasPrefix(devices[1]), "\(seen)")
        #expect((seen["share_errors"] as? [String]) == [], "\(seen)")

        // /api/track is the logger's own GeoJSON export, once every row is stored.
        _ = try await loggers[0].terminate()
        let (first, firstDevice) = (worlds[0], devices[0])
        try await Poll.until("the first logbook stored whole") {
            let logged = Set(try await Stored.exported(first).keys)
            let stored = Set(try await Stored.stored(database, firstDevice).keys)
            return logged.isSubset(of: stored)
        }
        let file = first.home.file("day.geojson")
        let export = try await first.run(["log", "export", "--format", "geojson", "--output", file.path])
        #expect(export.status == 0, "\(export)")
        let served = try await Self.get(
            port, "/api/track?device=\(devices[0])&since=2000-01-01T00:00Z&until=2100-01-01T00:00Z")
        #expect(served.status == 200)
        Self.expectSameTrack(served.body, try String(contentsOf: file, encoding: .utf8))

        // With a password and coarse positions: everything needs the password but the share
        // link, which shows its device alone; every position is on the 0.01° grid.
        #expect(try await server.terminate().status == 0)
        let secret = collector.state.file("password")
        try "correct horse\n".write(to: secret, atomically: true, encoding: .utf8)
        chmod(secret.path, 0o600)
        try "[serve]\nsource = collector\nlisten = 127.0.0.1:0\nposition = coarse\npassword-file = \(secret.path)\n"
            .write(
                to: config.appendingPathComponent("airloc.conf"), atomically: true, encoding: .utf8)
        server = try ChildProcess(AirlocBinary.path, ["serve"], environment: page)
        port = try await ServeEndToEndTests.port(of: server)
        #expect(try await Self.get(port, "/api/last").status == 401)
        #expect(try await Self.get(port, "/").status == 401)
        let last = try await Self.get(port, "/api/last", password: "correct horse")
        #expect(last.status == 200)
        let lastOnes = (Self.json(last.body) as? [[String: Any]]) ?? []
        #expect(lastOnes.map { $0["device_id"] as? String } == devices.sorted())
        func onGrid(_ value: Any?) -> Bool {
            guard let number = value as? Double else { return false }
            return abs(number * 100 - (number * 100).rounded()) < 1e-6
        }
        #expect(lastOnes.allSatisfy { onGrid($0["latitude"]) && onGrid($0["longitude"]) }, "\(lastOnes)")
        let coarse = try await Self.get(
            port, "/api/track?device=\(devices[0])&since=2000-01-01T00:00Z&until=2100-01-01T00:00Z",
            password: "correct horse")
        let coarseFeatures = ((Self.json(coarse.body) as? [String: Any])?["features"] as? [[String: Any]]) ?? []
        #expect(!coarseFeatures.isEmpty)
        for feature in coarseFeatures {
            let geometry = feature["geometry"] as? [String: Any] ?? [:]
            let positions =
                geometry["type"] as? String == "LineString"
                ? geometry["coordinates"] as? [[Double]] ?? [] : [geometry["coordinates"] as? [Double] ?? []]
            #expect(positions.allSatisfy { $0.count == 2 && onGrid($0[0]) && onGrid($0[1]) }, "\(geometry)")
            let properties = feature["properties"] as? [String: Any] ?? [:]
            if let latitude = properties["latitude"] as? Double { #expect(onGrid(latitude), "\(properties)") }
        }
        #expect(try await Self.get(port, "/?share=\(token)").status == 200)
        // The fleet's /metrics: clean for promtool, a device count and each device's newest row.
        let metrics = try await Self.get(port, "/metrics", password: "correct horse")
        let promtool = try await ChildProcess.run(
            "/usr/bin/env", ["promtool", "check", "metrics"], environment: ProcessInfo.processInfo.environment,
            stdin: metrics.body + "\n")
        #expect(promtool.status == 0 && promtool.stdout.isEmpty && promtool.stderr.isEmpty, "\(promtool)")
        #expect(metrics.body.contains("airloc_fleet_devices 3\n"), "\(metrics.body)")
        for device in devices {
            #expect(metrics.body.contains("airloc_fleet_device_last_row_timestamp_seconds{device=\"\(device)\"} "))
        }
        let shared = try await Self.get(port, "/api/track?share=\(token)")
        #expect(shared.status == 200)
        let since = (link["since"] as? String).flatMap(ISO8601DateFormatter().date) ?? .distantFuture
        let until = (link["until"] as? String).flatMap(ISO8601DateFormatter().date) ?? .distantPast
        let features = ((Self.json(shared.body) as? [String: Any])?["features"] as? [[String: Any]]) ?? []
        #expect(!features.isEmpty, "\(shared.body.prefix(300))")
        for feature in features {
            let properties = feature["properties"] as? [String: Any] ?? [:]
            for key in ["start", "end", "time"] {
                guard let text = properties[key] as? String else { continue }
                let date = ISO8601DateFormatter.fractional(text)
                #expect(date.map { $0 >= since && $0 < until } == true, "\(key) \(text) outside \(since)-\(until)")
            }
        }
        for path in [
            "/api/last?share=\(token)", "/metrics?share=\(token)", "/api/track?share=\(token)&device=\(devices[0])",
            "/api/track?share=\(String(token.reversed()))", "/api/track?share=short",
        ] {
            #expect(try await Self.get(port, path).status == 404, "\(path)")
        }
        // Revoked, and expired: refused; `--list` says which is which.
        let id = link["id"] as? String ?? ""
        #expect(try await share(["--revoke", id]).status == 0)
        #expect(try await Self.get(port, "/api/track?share=\(token)").status == 404)
        #expect(try await share(["--revoke", id]).status == 65)
        let second =
            (Self.json(
                try await share([devices[2], "--since", "1h", "--expires", "7d", "--json"])
                    .stdout)
                as? [String: Any]) ?? [:]
        let secondToken = (second["url"] as? String)?.components(separatedBy: "share=").last ?? ""
        #expect(try await Self.get(port, "/api/map?share=\(secondToken)").status == 200)
        _ = try await database.query(
            "UPDATE shares SET expires = now() - interval '1 second' WHERE id = '\(second["id"] as? String ?? "")'")
        #expect(try await Self.get(port, "/api/map?share=\(secondToken)").status == 404)
        let list = try await share(["--list", "--json"]).stdout.split(separator: "\n")
            .compactMap { Self.json(String($0)) as? [String: Any] }
        #expect(Set(list.compactMap { $0["state"] as? String }) == ["revoked", "expired"], "\(list)")
        #expect(!list.contains { ($0["url"] as? String) != nil }, "a listed link never shows its token")
        let rows = try await database.query("SELECT encode(token_sha256, 'hex') FROM shares")
        #expect(!rows.contains(token) && !rows.contains(secondToken), "only hashes are stored")

        #expect(try await server.terminate().status == 0)
        for logger in loggers.dropFirst() { _ = try await logger.terminate() }
    }

    /// The same track features: each LineString's positions and properties, each lone
    /// point, and the same air and sensor rows (by id).
    static func expectSameTrack(_ served: String, _ exported: String) {
        func features(_ text: String) -> [[String: Any]] {
            ((json(text) as? [String: Any])?["features"] as? [[String: Any]]) ?? []
        }
        let a = features(served)
        let b = features(exported)
        #expect(a.count == b.count && !a.isEmpty, "\(a.count) features served, \(b.count) exported")
        func lines(_ all: [[String: Any]]) -> [String] {
            all.filter { ($0["geometry"] as? [String: Any])?["type"] as? String == "LineString" }.map { feature in
                let geometry = feature["geometry"] as? [String: Any] ?? [:]
                let properties = feature["properties"] as? [String: Any] ?? [:]
                let keys = ["kind", "segment", "start", "end", "points"].map { "\(properties[$0] ?? "-")" }
                return "\(geometry["coordinates"] ?? "") \(keys)"
            }
        }
        #expect(lines(a) == lines(b))
        func ids(_ all: [[String: Any]]) -> [String] {
            all.compactMap { ($0["properties"] as? [String: Any])?["id"] as? String }.sorted()
        }
        #expect(ids(a) == ids(b))
    }
}

extension ISO8601DateFormatter {
    /// An ISO 8601 time with or without its milliseconds.
    static func fractional(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }
}
