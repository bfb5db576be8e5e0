import Foundation
import TestSupport
import Testing

/// docs/examples/mosquitto.acl, the ACL file docs/scaling.md gives, on a real mosquitto
/// with an account per device, the collector's and the consumers': a named device's rows
/// are stored and acknowledged under its name, Home Assistant finds it under that name,
/// and what another device or a consumer forges on its topics never arrives.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "mosquitto_sub", "mosquitto_passwd", "psql")))
struct FleetACLEndToEndTests {
    typealias Collector = CollectorEndToEndTests
    typealias Fleet = FleetEndToEndTests

    static let accounts = ["pi-4", "pi-5", "airloc-collect", "home-assistant", "history-consumer"]

    static func password(_ user: String) -> String { "pw-\(user)-7" }

    /// A broker with the documented ACL file (`acl`: changed by the test) and an account
    /// for each of ``accounts``.
    static func broker(acl change: (String) -> String = { $0 }) async throws -> MosquittoBroker {
        let broker = try await MosquittoBroker.prepare()
        let passwords = broker.directory.file("passwords")
        let tool = try #require(ExternalTool.path(of: "mosquitto_passwd"))
        for (index, user) in accounts.enumerated() {
            let made = try await ChildProcess.run(
                tool, (index == 0 ? ["-c"] : []) + ["-b", passwords.path, user, password(user)],
                environment: ProcessInfo.processInfo.environment)
            guard made.status == 0 else { throw FixtureError("mosquitto_passwd: \(made)") }
        }
        let acl = broker.directory.file("airloc.acl")
        try change(String(contentsOf: PackagePaths.file("docs/examples/mosquitto.acl"), encoding: .utf8))
            .write(to: acl, atomically: true, encoding: .utf8)
        // The documented file as it is, its paths and its listener those of this test, then
        // the test broker's own lines (persistence, the user).
        let own = try String(contentsOf: broker.directory.file("mosquitto.conf"), encoding: .utf8)
            .split(separator: "\n")
            .filter { !["allow_anonymous", "per_listener", "listener"].contains(where: $0.hasPrefix) }
            .joined(separator: "\n")
        let documented = try String(contentsOf: PackagePaths.file("docs/examples/mosquitto.conf"), encoding: .utf8)
        #expect(documented.contains("\nlistener 1883\n"), "the documented file's listener")
        let config =
            documented.replacingOccurrences(of: "/etc/mosquitto/airloc.passwd", with: passwords.path)
            .replacingOccurrences(of: "/etc/mosquitto/airloc.acl", with: acl.path)
            .replacingOccurrences(of: "\nlistener 1883\n", with: "\nlistener \(broker.port) 127.0.0.1\n") + "\n"
            + own + "\n"
        try config.write(to: broker.directory.file("mosquitto.conf"), atomically: true, encoding: .utf8)
        try await broker.start()
        return broker
    }

    /// Any account could connect with another's client id (the collector's default
    /// airloc-collect-<host> is predictable, a device's is airloc-<id>): mosquitto dropped
    /// the one connected, again at every such connection. With the documented file a
    /// client's id is its account's name: pi-5's account connecting as the collector and as
    /// pi-4 pushes neither off, and their rows go on being stored.
    @Test func noAccountCanTakeAnothersClientID() async throws {
        let broker = try await Self.broker()
        let database = try await PostgresServer.start()
        let secrets = try Self.secrets()
        defer { secrets.remove() }
        let collector = try Self.collector(
            broker, database, secrets: secrets, extra: "client-id = airloc-collect-station\n")
        defer { collector.state.remove() }
        let running = try collector.start()
        defer { running.stop() }
        let world = try await AirlocWorld(config: Self.pi4(broker, secrets: secrets))
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        defer { logger.stop() }
        try await Fleet.waitForStatus(world, "rows stored and acknowledged", logger: logger) {
            ($0["track_rows"] as? Int ?? 0) >= 3 && ($0["collector_ack"] as? [String: Any]) != nil
        }

        let sub = try #require(ExternalTool.path(of: "mosquitto_sub"))
        for id in ["airloc-collect-station", "airloc-pi-4"] {
            for _ in 1...3 {
                // Connects, subscribes, waits a second for a message that never comes.
                _ = try await ChildProcess.run(
                    sub, Self.client(broker, "pi-5") + ["-i", id, "-t", "airloc/pi-5/none", "-C", "1", "-W", "1"],
                    environment: ProcessInfo.processInfo.environment)
            }
        }
        let stored = try await Collector.storedCount(database)
        try await Poll.until("rows stored after the attempts") {
            try await Collector.storedCount(database) >= stored + 3
        }
        for id in ["airloc-collect-station", "airloc-pi-4"] {
            #expect(
                !broker.log.contains("Client \(id) already connected"), "pi-5's account pushed \(id) off: \(broker.log)"
            )
        }
        logger.signal(SIGTERM)
        #expect(try await logger.wait().status == 0)
        try await broker.stop()
        try await database.stop()
    }

    /// pi-4's and the collector's password files (0600).
    static func secrets() throws -> TemporaryDirectory {
        let secrets = try TemporaryDirectory()
        for user in ["pi-4", "airloc-collect"] {
            try "\(Self.password(user))\n".write(to: secrets.file(user), atomically: true, encoding: .utf8)
            chmod(secrets.file(user).path, 0o600)
        }
        return secrets
    }

    /// The collector, through its own account (`extra`: more `[collect]` lines).
    static func collector(
        _ broker: MosquittoBroker, _ database: PostgresServer, secrets: TemporaryDirectory, extra: String = ""
    ) throws -> Collector.CollectorProcess {
        try Collector.CollectorProcess(
            broker: broker, database: database,
            config: "[collect]\nusername = airloc-collect\n\(extra)"
                + "broker-password-file = \(secrets.file("airloc-collect").path)\n")
    }

    /// The configuration of device pi-4, publishing through its own account.
    static func pi4(_ broker: MosquittoBroker, secrets: TemporaryDirectory) -> String {
        """
        [log]
        track-interval = 1
        [mqtt]
        url = \(broker.url)
        device-id = pi-4
        username = pi-4
        password-file = \(secrets.file("pi-4").path)
        position = exact
        end-to-end = collector
        ack-timeout = 2
        """
    }

    static func client(_ broker: MosquittoBroker, _ user: String) -> [String] {
        ["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-u", user, "-P", password(user)]
    }

    static func publish(
        _ broker: MosquittoBroker, as user: String, _ topic: String, _ payload: String, retain: Bool = false
    ) async throws {
        let tool = try #require(ExternalTool.path(of: "mosquitto_pub"))
        let result = try await ChildProcess.run(
            tool, client(broker, user) + ["-t", topic, "-s"] + (retain ? ["-r"] : []),
            environment: ProcessInfo.processInfo.environment,
            stdin: payload)
        #expect(result.status == 0, "\(result)")
    }

    /// `account` publishes a row, a hello and a discovery config as a device named like it:
    /// the `pattern` lines give every account such a subtree, and the documented file
    /// denies each service account its own, so none of it may arrive.
    static func pose(_ broker: MosquittoBroker, as account: String, retain: Bool = false) async throws {
        try await publish(
            broker, as: account, "airloc/\(account)/history",
            CollectorInputEndToEndTests.track(1, latitude: 23.4567, extra: #""device":"\#(account)","#), retain: retain)
        try await publish(
            broker, as: account, "airloc/\(account)/hello",
            #"{"schema":"airloc.hello/1","device":"\#(account)","software":"posing","first":{"track":1}}"#,
            retain: retain)
        try await publish(
            broker, as: account, "homeassistant/sensor/airloc_\(account)/posing/config", #"{"name":"posing"}"#,
            retain: retain)
    }

    /// mosquitto acknowledges a publish its ACL drops: a device whose account and device id
    /// disagree publishes into the void. doctor publishes a probe on the device's own
    /// subtree and reads it back, and says so when it never comes.
    @Test func doctorFindsAnAccountWhosePublishesTheACLDrops() async throws {
        let broker = try await Self.broker()
        let home = try TemporaryDirectory()
        defer { home.remove() }
        try "\(Self.password("pi-5"))\n".write(to: home.file("secret"), atomically: true, encoding: .utf8)
        chmod(home.file("secret").path, 0o600)
        func checks(deviceID: String) async throws -> [String: Any] {
            let file = home.file("airloc.conf")
            try """
            [mqtt]
            url = \(broker.url)
            device-id = \(deviceID)
            username = pi-5
            password-file = \(home.file("secret").path)
            """.write(to: file, atomically: true, encoding: .utf8)
            let environment = AirlocBinary.environment(home: home.url, extra: ["AIRLOC_CONFIG": file.path])
            return try await ServeEndToEndTests.doctorChecks(environment)["MQTT broker"] ?? [:]
        }
        let mismatched = try await checks(deviceID: "pi-9")
        #expect(mismatched["status"] as? String == "fail", "\(mismatched)")
        let detail = mismatched["detail"] as? String ?? ""
        #expect(
            detail.contains("drops what this account publishes") && detail.contains("airloc/pi-9/probe"), "\(detail)")
        #expect((mismatched["advice"] as? String ?? "").contains("username and device-id"), "\(mismatched)")
        let matched = try await checks(deviceID: "pi-5")
        #expect(matched["status"] as? String == "ok", "the account's own subtree: \(matched)")
        try await broker.stop()
    }

    @Test func theDocumentedACLStoresANamedDeviceAndDropsWhatOthersForge() async throws {
        let scaling = try String(contentsOf: PackagePaths.file("docs/scaling.md"), encoding: .utf8)
        let acl = try String(contentsOf: PackagePaths.file("docs/examples/mosquitto.acl"), encoding: .utf8)
        #expect(scaling.contains(acl), "docs/scaling.md shows the tested ACL file as it is")
        let settings = try String(contentsOf: PackagePaths.file("docs/examples/mosquitto.conf"), encoding: .utf8)
        #expect(scaling.contains(settings), "docs/scaling.md shows the tested mosquitto settings as they are")

        let broker = try await Self.broker()
        let database = try await PostgresServer.start()
        let secrets = try Self.secrets()
        defer { secrets.remove() }
        // Retained, before the collector connects: a client of its account would take the
        // collector's id once it runs (home-assistant's likewise takes the watcher's).
        try await Self.pose(broker, as: "airloc-collect", retain: true)
        let collector = try Self.collector(broker, database, secrets: secrets)
        defer { collector.state.remove() }
        let running = try collector.start()
        defer { running.stop() }

        // Home Assistant's account watches everything it may read; pi-5's own status (which
        // it may write, and Home Assistant read) tells when its subscription is in place. One
        // connection per account: a probe as home-assistant would take the watcher's id.
        let sub = try #require(ExternalTool.path(of: "mosquitto_sub"))
        let watcher = try ChildProcess(
            sub, Self.client(broker, "home-assistant") + ["-v", "-t", "airloc/#", "-t", "homeassistant/#"],
            environment: ProcessInfo.processInfo.environment)
        defer { watcher.stop() }
        try await Poll.until("Home Assistant subscribed") {
            try await Self.publish(broker, as: "pi-5", "airloc/pi-5/status", "probe")
            return watcher.output.contains("airloc/pi-5/status probe")
        }

        let world = try await AirlocWorld(config: Self.pi4(broker, secrets: secrets))
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        defer { logger.stop() }
        do {
            try await Fleet.waitForStatus(world, "rows stored and acknowledged through the ACL", logger: logger) {
                ($0["track_rows"] as? Int ?? 0) >= 3 && ($0["collector_ack"] as? [String: Any]) != nil
            }
        } catch {
            throw FixtureError("\(error)\n--- collector\n\(running.errors)\n--- broker\n\(broker.log.suffix(3000))")
        }
        let stored = try await Collector.stored(database, "pi-4")
        #expect(!stored.isEmpty, "the rows are stored under the device's name")
        #expect(!running.errors.contains("another device"), "\(running.errors)")
        #expect(watcher.output.contains("homeassistant/sensor/airloc_pi-4/"), "discovery under the device's name")

        // Forgeries: a row and an ack on pi-4's topics by pi-5, an ack by a consumer. Then
        // pi-5 says something on its own topic: when that has arrived, so would they have.
        try await Self.publish(
            broker, as: "pi-5", "airloc/pi-4/history",
            CollectorInputEndToEndTests.track(9, latitude: 12.3456, extra: #""device":"pi-4","#))
        let forgedAck =
            #"{"schema":"airloc.ack/1","time":"2026-12-01T10:00:00Z","through":{"track":99999},"revised":{}}"#
        try await Self.publish(broker, as: "pi-5", "airloc/pi-4/ack", forgedAck)
        try await Self.publish(broker, as: "history-consumer", "airloc/pi-4/ack", forgedAck)
        try await Self.pose(broker, as: "history-consumer")
        try await Self.publish(broker, as: "pi-5", "airloc/pi-5/status", "marker")
        try await Poll.until("pi-5's own message through") { watcher.output.contains("airloc/pi-5/status marker") }
        try await Poll.until("pi-5 known to the collector") {
            try await database.query("SELECT count(*) FROM devices WHERE device_id = 'pi-5'") == "1\n"
        }
        #expect(!watcher.output.contains("99999"), "a forged ack went through")
        #expect(!watcher.output.contains("12.3456"), "a forged row went through")
        #expect(try await database.query("SELECT count(*) FROM track WHERE latitude = 12.3456") == "0\n")
        #expect(!watcher.output.contains("23.4567"), "a service account posed as a device")
        #expect(!watcher.output.contains("posing"), "a service account published discovery as a device")
        #expect(try await database.query("SELECT count(*) FROM track WHERE latitude = 23.4567") == "0\n")
        #expect(
            try await database.query(
                "SELECT count(*) FROM devices WHERE device_id IN ('airloc-collect', 'history-consumer')"
            ) == "0\n")
        #expect(!broker.log.contains("does not contain"), "mosquitto warned about the ACL: \(broker.log)")

        logger.signal(SIGTERM)
        #expect(try await logger.wait().status == 0)
        running.signal(SIGTERM)
        _ = try await running.wait()
        try await broker.stop()
        try await database.stop()
    }
}
