import Foundation
import TestSupport
import Testing

/// `airloc log run` publishing to a real mosquitto the test starts on a port of its own:
/// every logbook row reaches a subscriber (compared by `id`) across outages and kills;
/// availability and Home Assistant discovery as a Home Assistant instance would see them.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "mosquitto_sub")))
struct FleetEndToEndTests {
    static func json(_ text: String) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }

    static func status(_ world: AirlocWorld) async throws -> [String: Any] {
        json(try await world.run(["log", "status", "--json"]).stdout) ?? [:]
    }

    /// Waits for `log status --json` to satisfy `condition`; on a timeout the error shows
    /// the status and what `logger` said.
    static func waitForStatus(
        _ world: AirlocWorld, _ what: String, logger: ChildProcess? = nil,
        _ condition: @escaping @Sendable ([String: Any]) -> Bool
    ) async throws {
        do {
            try await Poll.until(what) { condition(try await status(world)) }
        } catch {
            throw FixtureError(
                "timed out waiting for \(what): \(try await status(world))\n--- logger's stderr\n\(logger?.errors ?? "")"
            )
        }
    }

    /// The ids of every row in the logbook.
    static func loggedIDs(_ world: AirlocWorld) async throws -> Set<String> {
        let export = try await world.run(["log", "export", "--format", "ndjson"])
        return Set(export.stdout.split(separator: "\n").compactMap { json(String($0))?["id"] as? String })
    }

    static func receivedIDs(_ subscriber: MQTTSubscriber, prefix: String) -> Set<String> {
        Set(
            subscriber.messages.filter { $0.topic == "\(prefix)/history" }.compactMap {
                json($0.payload)?["id"] as? String
            })
    }

    static func config(_ broker: MosquittoBroker, extra: String = "") -> String {
        "[log]\ntrack-interval = 1\n[mqtt]\nurl = \(broker.url)\ntopic-prefix = airloc/test-device\n\(extra)"
    }

    /// The broker is down when logging starts and comes back (restarted with its
    /// persistence): every row reaches the subscriber's persistent session; a clean stop
    /// says `offline`.
    @Test func everyRowArrivesAcrossABrokerOutage() async throws {
        let broker = try await MosquittoBroker.start()
        // The subscriber's persistent session exists before the outage, as a real
        // consumer's would (start returns once the broker has its subscription).
        let first = try await MQTTSubscriber.start(broker: broker, id: "history-consumer", topics: ["airloc/#"])
        try await first.stop()
        try await broker.stop()
        let world = try await AirlocWorld(config: Self.config(broker))
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        try await Self.waitForStatus(world, "rows waiting for the broker", logger: logger) {
            ($0["unsent"] as? Int ?? 0) >= 3
        }
        try await broker.start()
        let subscriber = try await MQTTSubscriber.start(broker: broker, id: "history-consumer", topics: ["airloc/#"])
        try await Self.waitForStatus(world, "the backlog acknowledged", logger: logger) {
            ($0["unsent"] as? Int) == 0 && ($0["track_rows"] as? Int ?? 0) >= 5
        }
        logger.signal(SIGTERM)
        let stopped = try await logger.wait()
        #expect(stopped.status == 0, "\(stopped)")
        let logged = try await Self.loggedIDs(world)
        try await Poll.until("every logged row at the subscriber") {
            logged.isSubset(of: Self.receivedIDs(subscriber, prefix: "airloc/test-device"))
        }
        try await Poll.until("offline on a clean stop") {
            subscriber.messages.last { $0.topic == "airloc/test-device/status" }?.payload == "offline"
        }
        // Coarse by default: no published track point is finer than the 0.01° grid.
        for message in subscriber.messages where message.topic == "airloc/test-device/history" {
            guard let row = Self.json(message.payload), row["kind"] as? String == "track" else { continue }
            let latitude = try #require(row["latitude"] as? Double)
            #expect(abs(latitude * 100 - (latitude * 100).rounded()) < 1e-6, "\(message.payload)")
        }
        try await subscriber.stop()
        try await broker.stop()
    }

    /// SIGKILL: the broker says `offline` for the dead logger (its will); the next start
    /// publishes what was not acknowledged, and everything arrives.
    @Test func aKilledLoggerIsOfflineAndTheNextStartCatchesUp() async throws {
        let broker = try await MosquittoBroker.start()
        let subscriber = try await MQTTSubscriber.start(broker: broker, id: "kill-consumer", topics: ["airloc/#"])
        let world = try await AirlocWorld(config: Self.config(broker))
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        try await Poll.until("online") {
            subscriber.messages.contains { $0.topic == "airloc/test-device/status" && $0.payload == "online" }
        }
        try await Self.waitForStatus(world, "a few rows", logger: logger) { ($0["track_rows"] as? Int ?? 0) >= 3 }
        logger.signal(SIGKILL)
        _ = try await logger.wait()
        try await Poll.until("the will: offline") {
            subscriber.messages.last { $0.topic == "airloc/test-device/status" }?.payload == "offline"
        }
        let again = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        try await Self.waitForStatus(world, "everything acknowledged after the restart", logger: again) {
            ($0["unsent"] as? Int) == 0 && ($0["segments"] as? Int ?? 0) >= 2
        }
        again.signal(SIGTERM)
        #expect(try await again.wait().status == 0)
        let logged = try await Self.loggedIDs(world)
        try await Poll.until("every logged row at the subscriber") {
            logged.isSubset(of: Self.receivedIDs(subscriber, prefix: "airloc/test-device"))
        }
        try await subscriber.stop()
        try await broker.stop()
    }

    /// What Home Assistant's discovery sees: retained configs for the air sensors with
    /// their device classes and units, a device tracker, availability, and states.
    @Test func homeAssistantDiscoversTheDevice() async throws {
        let broker = try await MosquittoBroker.start()
        let world = try await AirlocWorld(config: Self.config(broker))
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        try await Self.waitForStatus(world, "an air reading published", logger: logger) {
            ($0["air_rows"] as? Int ?? 0) >= 1 && ($0["unsent"] as? Int) == 0
        }
        // A late subscriber (Home Assistant starting) gets the retained messages.
        let homeAssistant = try await MQTTSubscriber.start(
            broker: broker, id: "home-assistant", topics: ["homeassistant/#", "airloc/test-device/+"])
        try await Poll.until("the discovery configs and the state") {
            let topics = Set(homeAssistant.messages.map(\.topic))
            return topics.contains { $0.hasSuffix("/aqi/config") } && topics.contains("airloc/test-device/state")
                && topics.contains { $0.hasPrefix("homeassistant/device_tracker/") }
        }
        logger.signal(SIGTERM)
        _ = try await logger.wait()
        let configs = Dictionary(
            homeAssistant.messages.filter { $0.topic.hasSuffix("/config") }.map { ($0.topic, $0.payload) },
            uniquingKeysWith: { _, last in last })
        let aqi = try #require(configs.first { $0.key.hasSuffix("/aqi/config") }.flatMap { Self.json($0.value) })
        #expect(aqi["device_class"] as? String == "aqi" && aqi["state_class"] as? String == "measurement")
        #expect(aqi["availability_topic"] as? String == "airloc/test-device/status")
        #expect((aqi["unique_id"] as? String)?.hasSuffix("_aqi") == true)
        // Home Assistant's current schema: default_entity_id (domain.slug), no object_id.
        #expect(aqi["default_entity_id"] as? String == "sensor." + (aqi["unique_id"] as? String ?? "?"), "\(aqi)")
        #expect(aqi["object_id"] == nil, "object_id is no longer read by Home Assistant: \(aqi)")
        let pm25 = try #require(configs.first { $0.key.hasSuffix("/pm25/config") }.flatMap { Self.json($0.value) })
        #expect(pm25["unit_of_measurement"] as? String == "\u{00B5}g/m\u{00B3}", "the micro sign Home Assistant lists")
        let state = try #require(
            homeAssistant.messages.last { $0.topic == "airloc/test-device/state" }.flatMap { Self.json($0.payload) })
        #expect(state["us_aqi"] as? Int == 41)
        let position = homeAssistant.messages.last { $0.topic == "airloc/test-device/position" }.flatMap {
            Self.json($0.payload)
        }
        if let position {
            #expect(
                position["latitude"] as? Double == 52.52 && position["longitude"] as? Double == 13.41,
                "coarse: \(position)")
        }
        // The device stands still: its (coarse) position is said once, not once a point.
        let positions = homeAssistant.messages.filter { $0.topic == "airloc/test-device/position" }
        #expect(positions.count <= 1, "\(positions.count) identical position messages")
        try await homeAssistant.stop()
        try await broker.stop()
    }

    /// Credentials the broker refuses are a configuration matter: exit 78, said clearly,
    /// the password never shown.
    @Test func refusedCredentialsStopWithAConfigurationError() async throws {
        let broker = try await MosquittoBroker.prepare()
        try
            "listener \(broker.port) 127.0.0.1\nallow_anonymous false\npassword_file \(broker.directory.file("passwords").path)\n"
            .write(to: broker.directory.file("mosquitto.conf"), atomically: true, encoding: .utf8)
        try "someone:$7$101$invalidinvalidinv$invalid\n".write(
            to: broker.directory.file("passwords"), atomically: true, encoding: .utf8)
        try await broker.start()
        let world = try await AirlocWorld(
            config: Self.config(broker, extra: "username = airloc\npassword = s3cret-pass\n"))
        defer { world.stop() }
        // A password inline is used only from a file others may not read.
        chmod(world.home.file("config/airloc/airloc.conf").path, 0o600)
        let result = try await world.run(["log", "run"], timeout: 120)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("refused") && result.stderr.contains("[mqtt] username"), "\(result.stderr)")
        #expect(!result.stderr.contains("s3cret-pass") && !result.stdout.contains("s3cret-pass"))
        try await broker.stop()
    }

    /// `log run` used an inline broker password from a configuration anyone could read, or
    /// a configuration anyone could write, silently (doctor only warned): refused now (78),
    /// naming the file and the fix, the password never shown.
    @Test func aConfigurationOthersMayReadWithASecretOrWriteIsRefused() async throws {
        let broker = try await MosquittoBroker.start()
        let world = try await AirlocWorld(
            config: Self.config(broker, extra: "username = pi\npassword = s3cret-pass\n"))
        defer { world.stop() }
        let file = world.home.file("config/airloc/airloc.conf").path
        chmod(file, 0o644)
        let readable = try await world.run(["log", "run"], timeout: 120)
        #expect(readable.status == 78, "\(readable)")
        #expect(readable.stderr.contains("a secret in a file others may read"), "\(readable.stderr)")
        #expect(!readable.stderr.contains("s3cret-pass"))
        try Self.config(broker).write(toFile: file, atomically: false, encoding: .utf8)
        chmod(file, 0o666)
        let writable = try await world.run(["log", "run"], timeout: 120)
        #expect(writable.status == 78 && writable.stderr.contains("others may write it"), "\(writable)")
        try await broker.stop()
    }

    /// A password file anyone on the device may read is refused before anything is sent,
    /// as the collector refuses its own: exit 78, naming the file and the fix.
    @Test func aPasswordFileAnyoneMayReadIsRefused() async throws {
        let broker = try await MosquittoBroker.start()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("mqtt-password")
        try "s3cret-pass\n".write(to: file, atomically: true, encoding: .utf8)
        chmod(file.path, 0o644)
        let world = try await AirlocWorld(
            config: Self.config(broker, extra: "username = pi\npassword-file = \(file.path)\n"))
        defer { world.stop() }
        let result = try await world.run(["log", "run"], timeout: 120)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("others may read it") && result.stderr.contains("chmod o-r"), "\(result.stderr)")
        #expect(!result.stderr.contains("s3cret-pass"))
        try await broker.stop()
    }
}
