import Foundation
import TestSupport
import Testing

/// `airloc log run` with a particulate sensor, publishing to a real mosquitto: measured
/// rows reach a subscriber under history, the latest on `<prefix>/measured` (retained), and
/// Home Assistant discovers the measured entities in its units.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "mosquitto_sub")))
struct FleetSensorEndToEndTests {
    static func json(_ text: String) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }

    /// A logger publishing on `prefix`, with the PMS5003T of the logger's sensor tests
    /// (read every 10 s).
    static func config(_ broker: MosquittoBroker, prefix: String) -> String {
        "[mqtt]\nurl = \(broker.url)\ntopic-prefix = \(prefix)\n" + LogSensorEndToEndTests.config
    }

    @Test func measuredRowsArePublishedAndDiscovered() async throws {
        let broker = try await MosquittoBroker.start()
        let sensor = try await SensorDouble.start("pms5003t", pm25: 22, humidity: 48)
        let subscriber = try await MQTTSubscriber.start(
            broker: broker, id: "sensor-consumer", topics: ["airloc/#", "homeassistant/#"])
        let world = try await AirlocWorld(config: Self.config(broker, prefix: "airloc/test-device"))
        defer { world.stop() }
        var environment = world.environment
        environment["AIRLOC_SENSOR_DEVICE"] = sensor.device
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: environment)
        try await Poll.until("a measured row on the history topic") {
            subscriber.messages.contains {
                $0.topic == "airloc/test-device/history" && Self.json($0.payload)?["kind"] as? String == "sensor"
            }
        }
        try await Poll.until("the measured state") {
            subscriber.messages.contains { $0.topic == "airloc/test-device/measured" }
        }
        let stopped = try await logger.terminate()
        #expect(stopped.status == 0, "\(stopped)")
        let row = try #require(
            subscriber.messages.compactMap { Self.json($0.payload) }.first { $0["kind"] as? String == "sensor" })
        #expect(row["pm2_5"] as? Double == 22 && row["relative_humidity"] as? Double == 48, "\(row)")
        // The default `[mqtt] position = coarse`: on the 0.01° grid.
        if let latitude = row["latitude"] as? Double { #expect(latitude == (latitude * 100).rounded() / 100) }
        let measured = try #require(
            subscriber.messages.last { $0.topic == "airloc/test-device/measured" }.flatMap { Self.json($0.payload) })
        #expect(measured["pm2_5"] as? Double == 22 && measured["temperature_c"] as? Double == 21.5, "\(measured)")
        let configs = subscriber.messages.filter { $0.topic.contains("/measured_") && $0.topic.hasSuffix("/config") }
        let classes = Set(configs.compactMap { Self.json($0.payload)?["device_class"] as? String })
        #expect(classes == ["pm1", "pm25", "pm10", "temperature", "humidity"], "\(configs.map(\.topic))")
        try await subscriber.stop()
        try await broker.stop()
    }

    /// Home Assistant (2024.1, its own mqtt integration with discovery) shows the sensor's
    /// reading, and, once the sensor is unplugged, the entity unavailable after the
    /// reading's freshness window (two intervals, at least 120 s: `expire_after`), as every
    /// other outlet stops showing it; the retained state alone would hold the old value.
    @Test func homeAssistantShowsAStaleReadingAsUnavailable() async throws {
        let broker = try await MosquittoBroker.start()
        let sensor = try await SensorDouble.start("pms5003t", pm25: 22, humidity: 48)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let homeAssistant = try await HomeAssistantProcess.start(
            broker: broker, directory: directory, integrations: ["--discovery"])
        defer { homeAssistant.stop() }
        let world = try await AirlocWorld(config: Self.config(broker, prefix: "airloc/ha-device"))
        defer { world.stop() }
        var environment = world.environment
        environment["AIRLOC_SENSOR_DEVICE"] = sensor.device
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: environment)
        defer { logger.stop() }
        @Sendable func states(_ output: String) -> [String] {
            HomeAssistantProcess.sensorStates(output, named: "PM2.5 measured")
        }
        try await homeAssistant.waitForOutput("the measured PM2.5 in Home Assistant", timeout: 300) {
            states($0).last.flatMap(Double.init) == 22
        }
        sensor.stop()
        try await homeAssistant.waitForOutput("the measured PM2.5 unavailable once stale", timeout: 600) {
            states($0).last == "unavailable"
        }
        logger.signal(SIGTERM)
        #expect(try await logger.wait().status == 0, "\(logger.errors.suffix(1000))")
        try await broker.stop()
    }
}
