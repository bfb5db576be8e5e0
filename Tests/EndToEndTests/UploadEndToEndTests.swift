import Foundation
import TestSupport
import Testing

/// `airloc log run` forwarding its logbook to a double of each server (OwnTracks'
/// Recorder, Traccar, sensor.community, openSenseMap; scripts/upload-double.py parses
/// each request as the real server does): a week's backlog, a kill mid-drain, a server
/// down and back, refusals, the privacy defaults on the wire.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3")))
struct UploadEndToEndTests {
    typealias Fleet = FleetEndToEndTests
    static let box = "5f0000000000000000000001"

    static func servers(faults: [String] = []) async throws -> HTTPDouble {
        try await HTTPDouble.startUploadServers(
            [
                "--user", "field", "--password", "s3cret", "--traccar-id", "pi7", "--box", box, "--token", "tok-9",
                "--sensor", "s-pm25", "--sensor", "s-pm10",
            ] + faults.flatMap { ["--fault", $0] })
    }

    /// A world whose logbook already holds `backlog` track points and measured readings
    /// (a week offline), configured with the four uploads against `servers`.
    static func world(_ servers: HTTPDouble, backlog: Int, token: String = "tok-9", extra: String = "") async throws
        -> AirlocWorld
    {
        let directory = try TemporaryDirectory()
        let secrets = directory.url.path
        try "s3cret\n".write(to: directory.file("owntracks"), atomically: true, encoding: .utf8)
        try "\(token)\n".write(to: directory.file("osem"), atomically: true, encoding: .utf8)
        chmod(directory.file("owntracks").path, 0o600)
        chmod(directory.file("osem").path, 0o600)
        let base = servers.baseURL
        let world = try await AirlocWorld(
            keeping: directory,
            config: """
                [log]
                track-interval = 1
                [upload.traccar]
                type = traccar
                url = \(base)/traccar/
                id = pi7
                [upload.recorder]
                type = owntracks-http
                url = \(base)/owntracks/pub
                user = field
                device = pi7
                credentials-file = \(secrets)/owntracks
                [upload.luftdaten]
                type = sensor-community
                url = \(base)/sensor-community
                id = 4711
                max-age = 0
                [upload.osem]
                type = opensensemap
                url = \(base)/opensensemap
                box = \(box)
                sensor-pm2_5 = s-pm25
                sensor-pm10 = s-pm10
                credentials-file = \(secrets)/osem
                \(extra)
                """)
        if backlog > 0 {
            let bench = URL(fileURLWithPath: AirlocBinary.path).deletingLastPathComponent()
                .appendingPathComponent("airloc-bench").path
            let written = try await ChildProcess.run(
                bench, ["backlog-write", world.home.file("state/airloc/logbook.sqlite").path, String(backlog)],
                environment: ProcessInfo.processInfo.environment, timeout: 600)
            guard written.status == 0 else { throw FixtureError("backlog-write: \(written)") }
        }
        return world
    }

    static func received(_ servers: HTTPDouble) throws -> [String: [[String: Any]]] {
        let object = try JSONSerialization.jsonObject(with: try servers.get("/__received")) as? [String: Any]
        return (object ?? [:]).compactMapValues { $0 as? [[String: Any]] }
    }

    /// The export's rows of `kind`, in id order.
    static func exported(_ world: AirlocWorld, kind: String) async throws -> [[String: Any]] {
        let export = try await world.run(["log", "export", "--format", "ndjson", "--kind", kind])
        return export.stdout.split(separator: "\n").compactMap { Fleet.json(String($0)) }
    }

    /// 2026-11-24T10:00:05Z, or with milliseconds: whole seconds since 1970. Two formatters
    /// made once, not two per row (a week's backlog compares some 60,000 times).
    nonisolated(unsafe) static let withFraction: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
    nonisolated(unsafe) static let withoutFraction = ISO8601DateFormatter()
    /// Tests run in parallel; the formatters are used one call at a time.
    static let formatting = NSLock()

    static func epoch(_ text: String) -> Int {
        let date =
            formatting.withLock { withFraction.date(from: text) ?? withoutFraction.date(from: text) }
            ?? Date(timeIntervalSince1970: 0)
        return Int(date.timeIntervalSince1970.rounded(.down))
    }

    static func waitForEmptyBacklogs(_ world: AirlocWorld, logger: ChildProcess, deadline: Duration = .seconds(1200))
        async throws
    {
        do {
            try await Poll.until("every upload's backlog sent", deadline: deadline) {
                let uploads = try await Fleet.status(world)["uploads"] as? [[String: Any]] ?? []
                return uploads.count == 4 && uploads.allSatisfy { $0["backlog"] as? Int == 0 }
            }
        } catch {
            throw FixtureError("\(error): \(try await Fleet.status(world))\n--- logger\n\(logger.errors.suffix(3000))")
        }
    }

    /// A week offline (10,000 rows of each kind) is drained to every server, each row once,
    /// oldest first, and each server's protocol is the one its decoder reads.
    @Test func aWeeksBacklogReachesEveryServerOnceOldestFirst() async throws {
        let servers = try await Self.servers()
        defer { servers.stop() }
        let world = try await Self.world(servers, backlog: 10_000)
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        // A few live rows on top of the backlog, then no more fixes.
        try await Fleet.waitForStatus(world, "live rows logged", logger: logger) {
            ($0["track_rows"] as? Int ?? 0) > 10_002
        }
        world.gpsd.stop()
        try await Self.waitForEmptyBacklogs(world, logger: logger)
        logger.signal(SIGTERM)
        #expect(try await logger.wait().status == 0)

        let track = try await Self.exported(world, kind: "track")
        let sensor = try await Self.exported(world, kind: "sensor")
        let got = try Self.received(servers)
        let trackTimes = track.map { Self.epoch($0["time"] as? String ?? "") }
        // Traccar: one position per row, in order, at the row's time, speed in knots.
        let traccar = got["traccar"] ?? []
        #expect(traccar.map { Int(($0["time"] as? Double ?? 0).rounded(.down)) } == trackTimes)
        let moving = try #require(track.first { ($0["speed_ms"] as? Double ?? 0) > 0 })
        let knots =
            traccar[track.firstIndex { $0["id"] as? String == moving["id"] as? String } ?? 0]["speed_knots"] as? Double
        #expect(abs((knots ?? 0) - (moving["speed_ms"] as? Double ?? 0) * 3600 / 1852) < 0.01, "speed in knots")
        // OwnTracks: one location per row, filed under the user and device.
        let owntracks = got["owntracks"] ?? []
        #expect(owntracks.map { $0["tst"] as? Int ?? 0 } == trackTimes)
        #expect(owntracks.allSatisfy { $0["_user"] as? String == "field" && $0["_device"] as? String == "pi7" })
        // sensor.community: measured readings only, PM10 as P1 and PM2.5 as P2, in order.
        let pushes = (got["sensor_community"] ?? []).filter { $0["pin"] as? String == "1" }
        #expect(
            pushes.count == sensor.count && sensor.count >= 10_000, "\(pushes.count) pushes of \(sensor.count) readings"
        )
        let p2 = pushes.map { ($0["values"] as? [String: String])?["P2"].flatMap(Double.init) ?? -1 }
        #expect(p2 == sensor.map { $0["pm2_5"] as? Double ?? -2 })
        #expect(pushes.allSatisfy { $0["sensor"] as? String == "raspi-4711" })
        // openSenseMap: each reading once per sensor, at its own time.
        let measurements = got["opensensemap"] ?? []
        for (sensorID, field) in [("s-pm25", "pm2_5"), ("s-pm10", "pm10")] {
            let times = measurements.filter { $0["sensor"] as? String == sensorID }.map {
                Self.epoch($0["createdAt"] as? String ?? "")
            }
            #expect(times == sensor.map { Self.epoch($0["time"] as? String ?? "") }, "\(field) each once, in order")
        }
        let status = try await Fleet.status(world)
        let uploads = status["uploads"] as? [[String: Any]] ?? []
        #expect(uploads.allSatisfy { $0["last_error"] is NSNull }, "\(uploads)")
    }
}

/// The faults of uploading: a kill mid-drain, a server down and back, a refusal, and what
/// leaves the device by default.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3")))
struct UploadFaultEndToEndTests {
    typealias Uploads = UploadEndToEndTests
    typealias Fleet = FleetEndToEndTests

    /// kill -9 in the middle of a drain: after the restart every row is there, and at most
    /// the batch in flight (one row for Traccar, one batch for openSenseMap) came twice.
    @Test func aKillDuringADrainSendsAtMostTheBatchInFlightAgain() async throws {
        let servers = try await Uploads.servers()
        defer { servers.stop() }
        let world = try await Uploads.world(servers, backlog: 2000)
        defer { world.stop() }
        world.gpsd.stop()
        let first = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        try await Poll.until("the drain under way") { (try Uploads.received(servers)["traccar"]?.count ?? 0) >= 300 }
        first.signal(SIGKILL)
        _ = try await first.wait()
        let second = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        try await Uploads.waitForEmptyBacklogs(world, logger: second)
        second.signal(SIGTERM)
        #expect(try await second.wait().status == 0)
        let got = try Uploads.received(servers)
        let track = try await Uploads.exported(world, kind: "track")
        let times = (got["traccar"] ?? []).map { Int(($0["time"] as? Double ?? 0).rounded(.down)) }
        #expect(Set(times) == Set(track.map { Uploads.epoch($0["time"] as? String ?? "") }), "every row there")
        #expect(times.count - Set(times).count <= 1, "at most the one position in flight twice")
        let measurements = (got["opensensemap"] ?? []).filter { $0["sensor"] as? String == "s-pm25" }
        let created = measurements.map { $0["createdAt"] as? String ?? "" }
        #expect(created.count - Set(created).count <= 100, "at most one batch of 100 twice")
        #expect(Set(created).count >= 2000)
    }

    /// Traccar answers 503 with Retry-After and OwnTracks drops the connection for a while:
    /// the rows wait, the error shows in `log status`, and when both are back every row
    /// arrives once.
    @Test func aServerDownForAWhileGetsEveryRowWhenItIsBack() async throws {
        let servers = try await Uploads.servers(faults: [
            #"{"path": "/traccar/", "status": 503, "retry_after": "1", "times": 4}"#,
            #"{"path": "/owntracks/", "mode": "close", "times": 3}"#,
        ])
        defer { servers.stop() }
        let world = try await Uploads.world(servers, backlog: 50)
        defer { world.stop() }
        world.gpsd.stop()
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        try await Fleet.waitForStatus(world, "the outage in log status", logger: logger) { status in
            let uploads = status["uploads"] as? [[String: Any]] ?? []
            return uploads.first { $0["name"] as? String == "traccar" }?["last_error"] as? String
                == "HTTP 503: {\"error\": \"injected\"}"
                || (uploads.first { $0["name"] as? String == "traccar" }?["sent"] as? Int ?? 0) > 0
        }
        try await Uploads.waitForEmptyBacklogs(world, logger: logger)
        logger.signal(SIGTERM)
        #expect(try await logger.wait().status == 0)
        let got = try Uploads.received(servers)
        let track = try await Uploads.exported(world, kind: "track")
        #expect((got["traccar"] ?? []).count == track.count, "each row once after the 503s")
        #expect((got["owntracks"] ?? []).count == track.count, "each row once after the dropped connections")
        let attempts = (got["attempts"] ?? []).filter { ($0["path"] as? String)?.hasPrefix("/traccar") == true }
        #expect(attempts.filter { $0["status"] as? Int == 503 }.count == 4, "no retry storm: each 503 once")
        #expect(logger.errors.contains("[upload.traccar] HTTP 503"), "\(logger.errors)")
    }

    /// A token openSenseMap refuses on the run's first request: `doctor` says so without
    /// uploading anything (78), and `log run` stops that upload alone, said once, and goes
    /// on logging and uploading elsewhere.
    @Test func aRefusedTokenStopsAtStartAndDoctorSaysSo() async throws {
        let servers = try await Uploads.servers()
        defer { servers.stop() }
        let world = try await Uploads.world(servers, backlog: 5, token: "wrong")
        defer { world.stop() }
        let doctor = try await world.run(["doctor", "--json"])
        #expect(doctor.status == 78, "\(doctor)")
        let checks = (Fleet.json(doctor.stdout)?["checks"] as? [[String: Any]]) ?? []
        let osem = checks.first { $0["name"] as? String == "upload osem" }
        #expect(osem?["status"] as? String == "fail", "\(checks)")
        #expect(checks.first { $0["name"] as? String == "upload traccar" }?["status"] as? String == "ok", "\(checks)")
        // sensor.community takes no credentials: doctor names the id the map will see, and
        // says that public maps get nothing without a sensor.
        let luftdaten = checks.first { $0["name"] as? String == "upload luftdaten" }
        let detail = (luftdaten?["detail"] as? String) ?? ""
        #expect(luftdaten?["status"] as? String == "ok", "\(checks)")
        #expect(detail.contains("raspi-4711, which must be registered") && !detail.contains("HTTP 400"), "\(detail)")
        let noSensor = checks.first { $0["name"] as? String == "upload luftdaten readings" }
        #expect(noSensor?["status"] as? String == "warn", "\(checks)")
        #expect(checks.first { $0["name"] as? String == "upload traccar readings" } == nil, "a track upload needs none")
        let stored = try Uploads.received(servers)
        #expect((stored["traccar"] ?? []).isEmpty && (stored["opensensemap"] ?? []).isEmpty, "doctor uploads nothing")

        // The refused upload stops itself, loudly; the logger and the other uploads go on.
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        let refusal = "[upload.osem] the server refused the credentials (HTTP 401)"
        try await Poll.until("the refusal said") { logger.errors.contains(refusal) || !logger.isRunning }
        #expect(logger.isRunning, "the logger went on: \(logger.errors)")
        let first = try await LogEndToEndTests.waitForStatus(world, "the refusal in log status") { status in
            let uploads = status["uploads"] as? [[String: Any]] ?? []
            let osem = uploads.first { $0["name"] as? String == "osem" }
            return (osem?["last_error"] as? String ?? "").contains("refused the credentials")
        }
        let rows = first["track_rows"] as? Int ?? 0
        _ = try await LogEndToEndTests.waitForStatus(world, "track points after the refusal") {
            ($0["track_rows"] as? Int ?? 0) > rows
        }
        try await Poll.until("Traccar still gets rows") { !((try Uploads.received(servers)["traccar"]) ?? []).isEmpty }
        logger.signal(SIGTERM)
        #expect(try await logger.wait().status == 0, "\(logger.errors)")
        #expect(logger.errors.components(separatedBy: refusal).count == 2, "said once: \(logger.errors)")
        #expect((try Uploads.received(servers)["opensensemap"] ?? []).isEmpty, "nothing reached the refusing box")
    }

    /// What leaves the device by default: the exact place for one's own servers (Traccar,
    /// OwnTracks), the 0.01° grid for the public maps, on the wire.
    @Test func ownServersGetTheExactPlaceAndPublicMapsTheGrid() async throws {
        let servers = try await Uploads.servers()
        defer { servers.stop() }
        let world = try await Uploads.world(servers, backlog: 3)
        defer { world.stop() }
        world.gpsd.stop()
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        try await Uploads.waitForEmptyBacklogs(world, logger: logger)
        logger.signal(SIGTERM)
        _ = try await logger.wait()
        let got = try Uploads.received(servers)
        let track = try await Uploads.exported(world, kind: "track")
        let exact = track.map { [$0["latitude"] as? Double ?? 0, $0["longitude"] as? Double ?? 0] }
        #expect((got["traccar"] ?? []).map { [$0["lat"] as? Double ?? 1, $0["lon"] as? Double ?? 1] } == exact)
        #expect((got["owntracks"] ?? []).map { [$0["lat"] as? Double ?? 1, $0["lon"] as? Double ?? 1] } == exact)
        #expect(
            exact.contains { abs($0[0] * 100 - ($0[0] * 100).rounded()) > 1e-6 }, "the track is finer than the grid")
        func onGrid(_ value: Double) -> Bool { abs(value * 100 - (value * 100).rounded()) < 1e-6 }
        let gps = (got["sensor_community"] ?? []).filter { $0["pin"] as? String == "9" }
        #expect(!gps.isEmpty)
        for push in gps {
            let values = push["values"] as? [String: String] ?? [:]
            #expect(
                onGrid(Double(values["lat"] ?? "") ?? 0.001) && onGrid(Double(values["lon"] ?? "") ?? 0.001),
                "\(values)")
            #expect(values["height"] == nil, "no altitude on a public map, not even a 0: \(values)")
        }
        for measurement in got["opensensemap"] ?? [] {
            let location = measurement["location"] as? [Double] ?? [0.001, 0.001]
            #expect(location.allSatisfy(onGrid), "\(location)")
        }
    }
}

/// A real client of the owntracks-mqtt upload: Home Assistant's own `owntracks`
/// integration (Home Assistant 2024.1 from PyPI, scripts/home-assistant.py) on the same
/// broker makes a device tracker at the device's position from what airloc publishes.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "mosquitto_sub")))
struct HomeAssistantOwnTracksTests {
    @Test func homeAssistantTracksTheDeviceFromTheOwnTracksUpload() async throws {
        let broker = try await MosquittoBroker.start()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let homeAssistant = try await HomeAssistantProcess.start(
            broker: broker, directory: directory, integrations: ["--owntracks"])
        defer { homeAssistant.stop() }
        let world = try await AirlocWorld(
            config: """
                [log]
                track-interval = 1
                [upload.phone]
                type = owntracks-mqtt
                url = \(broker.url)
                user = field
                device = pi7
                """)
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        try await homeAssistant.waitForOutput("device_tracker.field_pi7 at a position", timeout: 300) {
            $0.contains("STATE device_tracker.field_pi7 ")
        }
        world.gpsd.stop()
        logger.signal(SIGTERM)
        #expect(try await logger.wait().status == 0)
        // Every position Home Assistant showed is one the logbook holds, exactly (exact is
        // the default for one's own server).
        let export = try await world.run(["log", "export", "--format", "ndjson", "--kind", "track"])
        let logged = Set(
            export.stdout.split(separator: "\n").compactMap { line -> String? in
                guard let row = FleetEndToEndTests.json(String(line)), let lat = row["latitude"] as? Double,
                    let lon = row["longitude"] as? Double
                else { return nil }
                return "\(lat) \(lon)"
            })
        let shown = homeAssistant.output.split(separator: "\n").filter {
            $0.hasPrefix("STATE device_tracker.field_pi7 ")
        }
        .map { $0.split(separator: " ").dropFirst(2).prefix(2).joined(separator: " ") }
        #expect(!shown.isEmpty)
        for position in shown { #expect(logged.contains(position), "\(position) is not a logged position: \(logged)") }
        try await broker.stop()
    }
}
