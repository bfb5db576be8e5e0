import Foundation
import TestSupport
import Testing

/// `airloc serve` for real: libmicrohttpd's limits against hostile clients (a trickled
/// head, oversized heads, 200 connections at once, `..`, POST, wrong passwords, an event
/// stream never read), after which it still answers and the logger beside it still writes; the refusal to listen on the network
/// without a password; and a clean `promtool check metrics`.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "curl")))
struct ServeEndToEndTests {
    static func serve(_ config: String, start: Date? = nil) async throws -> (TemporaryDirectory, ChildProcess, Int) {
        let (home, environment) = try await LogPlotEndToEndTests.seeded(start: start)
        let file = home.file("airloc.conf")
        try config.write(to: file, atomically: true, encoding: .utf8)
        var env = environment
        env["AIRLOC_CONFIG"] = file.path
        let server = try ChildProcess(AirlocBinary.path, ["serve"], environment: env)
        return (home, server, try await port(of: server))
    }

    /// The port `airloc serve` says it listens on (`serving http://127.0.0.1:PORT/`).
    static func port(of server: ChildProcess) async throws -> Int {
        try await Poll.until("serve to listen") { server.errors.contains("serving http://") || !server.isRunning }
        let line = server.errors.split(separator: "\n").first { $0.contains("serving http://") } ?? ""
        guard let port = line.split(separator: ":").last.flatMap({ Int($0.prefix { $0.isNumber }) }) else {
            throw FixtureError("airloc serve did not start: \(server.errors)")
        }
        return port
    }

    /// The hostile clients run beside a live logger (gpsfake, a PMS5003T double, the air
    /// double) that `serve` reads: after them `serve` answers at once, and the logger is
    /// still running and writing, its next reading seen through `serve` itself.
    @Test func hostileClientsLeaveTheServerAnsweringAndTheLoggerWriting() async throws {
        let password = "correct horse"
        let world = try await AirlocWorld(config: LogSensorEndToEndTests.config)
        defer { world.stop() }
        let secret = world.home.file("password")
        try password.write(to: secret, atomically: true, encoding: .utf8)
        chmod(secret.path, 0o600)
        try (LogSensorEndToEndTests.config + "\n[serve]\nlisten = 127.0.0.1:0\npassword-file = \(secret.path)\n")
            .write(to: world.home.file("airloc.conf"), atomically: true, encoding: .utf8)
        let link = world.home.file("airloc-pm").path
        var environment = world.environment
        environment["AIRLOC_SENSOR_DEVICE"] = link
        environment["AIRLOC_CONFIG"] = world.home.file("airloc.conf").path
        let sensor = try await SensorDouble.start("pms5003t", pm25: 30, humidity: 55, link: link)
        defer { sensor.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: environment)
        let before = try await LogEndToEndTests.waitForStatus(world, "the logger's first reading") {
            ($0["sensor_rows"] as? Int ?? 0) >= 1
        }
        let server = try ChildProcess(AirlocBinary.path, ["serve"], environment: environment)
        let port = try await Self.port(of: server)

        let clients = PackagePaths.file("Tests/Clients/hostile_clients.py").path
        let run = try await ChildProcess.run(
            "/usr/bin/env", ["python3", clients, "\(port)", password], environment: [:])
        #expect(run.status == 0, "\(run)")
        let seen = (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]) ?? [:]
        #expect(seen["post"] as? Int == 405, "\(seen)")
        #expect(seen["dotdot"] as? Int == 404, "\(seen)")
        #expect(seen["no_password"] as? Int == 401 && seen["wrong_password"] as? Int == 401, "\(seen)")
        #expect(seen["head_9k"] as? Int == 431, "\(seen)")
        #expect(seen["query_9k"] as? Int == 431, "\(seen)")
        let huge = seen["head_100k"] as? Int ?? -1
        #expect(huge == 0 || (400..<500).contains(huge), "a 100 KiB head is refused or cut: \(seen)")
        #expect(seen["trickle_closed"] as? Bool == true, "a trickled head is cut off: \(seen)")
        #expect((seen["flood_opened"] as? Int ?? 0) > 0, "\(seen)")
        #expect(seen["after_flood"] as? Int == 200, "answering at once after the flood: \(seen)")
        #expect((seen["status_body"] as? String ?? "").contains("\"sensor_rows\":"), "\(seen)")

        // The logger went on: a reading after the attack, seen through serve's own status.
        let first = before["sensor_rows"] as? Int ?? 0
        try await Poll.until("a reading logged after the hostile clients") {
            let status = try await ChildProcess.run(
                "/usr/bin/env",
                ["curl", "-sS", "--max-time", "60", "-u", "airloc:\(password)", "http://127.0.0.1:\(port)/api/status"],
                environment: [:])
            let document = (try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8))) as? [String: Any]
            return (document?["sensor_rows"] as? Int ?? 0) > first + 1 || !logger.isRunning
        }
        #expect(logger.isRunning, "the logger is still running: \(logger.errors)")
        #expect(try await server.terminate().status == 0)
        #expect(try await logger.terminate().status == 0)
    }

    @Test func aNetworkAddressWithoutAPasswordIsRefusedAndMetricsLintClean() async throws {
        let (home, environment) = try await LogPlotEndToEndTests.seeded()
        defer { home.remove() }
        let file = home.file("airloc.conf")
        try "[serve]\nlisten = 0.0.0.0:0\n".write(to: file, atomically: true, encoding: .utf8)
        var env = environment
        env["AIRLOC_CONFIG"] = file.path
        let refused = try await AirlocBinary.run(["serve"], environment: env)
        #expect(refused.status == 78 && refused.stderr.contains("no password-file"), "\(refused)")
        // doctor says the same before anyone starts the service.
        let warned = try await Self.doctorChecks(env)
        #expect(warned["serve"]?["status"] as? String == "fail", "\(warned)")

        let (served, server, port) = try await Self.serve("[serve]\nlisten = 127.0.0.1:0\n")
        defer { served.remove() }
        let fetched = try await ChildProcess.run(
            "/usr/bin/env", ["curl", "-sS", "--max-time", "60", "http://127.0.0.1:\(port)/metrics"], environment: [:])
        let text = fetched.stdout
        #expect(text.contains("airloc_logbook_rows{kind=\"track\"} 660"), "\(text)")
        if ExternalTool.isCI || ExternalTool.path(of: "promtool") != nil {
            let lint = try await ChildProcess.run(
                "/usr/bin/promtool", ["check", "metrics"], environment: [:], stdin: text)
            #expect(lint.status == 0 && lint.stdout.isEmpty && lint.stderr.isEmpty, "\(lint)")
        }
        // doctor beside the running service: its port is taken, by airloc serve itself.
        var beside = environment
        beside["AIRLOC_CONFIG"] = served.file("doctor.conf").path
        try "[serve]\nlisten = 127.0.0.1:\(port)\n".write(
            to: served.file("doctor.conf"), atomically: true, encoding: .utf8)
        let checks = try await Self.doctorChecks(beside)
        #expect(checks["serve address"]?["status"] as? String == "ok", "\(checks)")
        let detail = checks["serve address"]?["detail"] as? String ?? ""
        #expect(detail.contains("served by airloc serve"), "\(checks)")
        _ = try await server.terminate()
    }

    /// An empty password-file let anyone in with `airloc:` and an empty password (doctor
    /// flagged it, serve started anyway): serve now refuses it as a configuration error.
    @Test func anEmptyPasswordFileIsRefused() async throws {
        let (home, environment) = try await LogPlotEndToEndTests.seeded()
        defer { home.remove() }
        let secret = home.file("serve.password")
        for content in ["", "\n", "\nsecret-on-the-second-line\n"] {
            try content.write(to: secret, atomically: true, encoding: .utf8)
            chmod(secret.path, 0o600)
            let file = home.file("airloc.conf")
            try "[serve]\nlisten = 127.0.0.1:0\npassword-file = \(secret.path)\n".write(
                to: file, atomically: true, encoding: .utf8)
            var env = environment
            env["AIRLOC_CONFIG"] = file.path
            let refused = try await AirlocBinary.run(["serve"], environment: env, timeout: 60)
            #expect(refused.status == 78 && refused.stderr.contains("first line is empty"), "\(refused)")
            #expect(!refused.stderr.contains("secret-on-the-second-line"))
            let checks = try await Self.doctorChecks(env)
            #expect(checks["serve password"]?["status"] as? String == "fail", "\(checks)")
        }
    }

    /// `doctor --json`'s checks by name.
    static func doctorChecks(_ environment: [String: String]) async throws -> [String: [String: Any]] {
        let doctor = try await AirlocBinary.run(["doctor", "--json"], environment: environment)
        let document = (try? JSONSerialization.jsonObject(with: Data(doctor.stdout.utf8))) as? [String: Any]
        let checks = document?["checks"] as? [[String: Any]] ?? []
        return Dictionary(checks.map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
    }
}
