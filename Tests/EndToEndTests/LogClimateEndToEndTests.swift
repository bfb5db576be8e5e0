import Foundation
import TestSupport
import Testing

/// `airloc log run` with three sensors at once, publishing to a real mosquitto: an SDS011
/// and an SCD30 double on pseudo-terminals and a BME280 in a directory laid out as sysfs
/// lays it out. Every sensor's values reach the logbook, every export and MQTT (history,
/// `measured/NAME`, Home Assistant's entities); the BME280 pulled out mid-run is said once,
/// its return once, and the other two go on logging meanwhile.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "mosquitto_sub")))
struct LogClimateEndToEndTests {
    static func json(_ text: String) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }

    /// The logbook's sensor rows, as `log export` writes them.
    static func rows(_ world: AirlocWorld) async throws -> [[String: Any]] {
        let export = try await world.run(["log", "export", "--format", "ndjson", "--kind", "sensor"])
        // Before the logger made the logbook (66): no rows yet.
        if export.status == 66 { return [] }
        guard export.status == 0 else { throw FixtureError("log export failed: \(export.status) \(export.stderr)") }
        return export.stdout.split(separator: "\n").compactMap { json(String($0)) }
    }

    static func named(_ rows: [[String: Any]], _ name: String) -> [[String: Any]] {
        rows.filter { $0["name"] as? String == name }
    }

    @Test func threeSensorsAreLoggedAndOneUnpluggedIsSaidOnce() async throws {
        let broker = try await MosquittoBroker.start()
        let pm = try await SensorDouble.start("sds011", pm25: 14.2, pm10: 22.4)
        let scd30 = try await SensorDouble.start("scd30", humidity: 41, co2: 845)
        let subscriber = try await MQTTSubscriber.start(
            broker: broker, id: "climate-consumer", topics: ["airloc/#", "homeassistant/#"])
        let world = try await AirlocWorld(config: "")
        defer { world.stop() }
        let room = try NowClimateEndToEndTests.bme280(world.home)
        let config = """
            [mqtt]
            url = \(broker.url)
            topic-prefix = airloc/climate
            [sensor]
            model = sds011
            device = \(pm.device)
            warm-up-seconds = 1
            sample-seconds = 2
            interval = 10
            [sensor.co2]
            model = scd30
            device = \(scd30.device)
            sample-seconds = 2
            interval = 3
            [sensor.room]
            model = bme280
            iio = \(room)
            sample-seconds = 1
            interval = 2
            """
        try config.write(
            to: world.home.url.appendingPathComponent("config/airloc/airloc.conf"), atomically: true, encoding: .utf8)
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        #expect(logger.isRunning)
        try await Poll.until("a row of each sensor in the logbook") {
            let rows = try await Self.rows(world)
            return ["sensor", "co2", "room"].allSatisfy { !Self.named(rows, $0).isEmpty } || !logger.isRunning
        }
        #expect(logger.errors.contains("reading [sensor.co2] SCD30 on \(scd30.device) every 3 s"), "\(logger.errors)")

        // The BME280 goes (its driver unbound: the directory is gone), and comes back.
        let away = world.home.file("sys/bus/iio/devices/unbound").path
        try FileManager.default.moveItem(atPath: room, toPath: away)
        let failed = "no reading of [sensor.room]"
        try await Poll.until("the BME280's absence said") { logger.errors.contains(failed) || !logger.isRunning }
        let co2Before = Self.named(try await Self.rows(world), "co2").count
        try await Poll.until("three more CO₂ readings while the BME280 is away") {
            Self.named(try await Self.rows(world), "co2").count >= co2Before + 3 || !logger.isRunning
        }
        try FileManager.default.moveItem(atPath: away, toPath: room)
        let back = "[sensor.room] gives readings again"
        try await Poll.until("the BME280's return said") { logger.errors.contains(back) || !logger.isRunning }
        try await Poll.until("the measured states retained") {
            ["measured", "measured/co2", "measured/room"].allSatisfy { topic in
                subscriber.messages.contains { $0.topic == "airloc/climate/\(topic)" }
            }
        }
        let stopped = try await logger.terminate()
        #expect(stopped.status == 0, "\(stopped)")
        #expect(stopped.stderr.components(separatedBy: failed).count == 2, "said once: \(stopped.stderr)")
        #expect(stopped.stderr.components(separatedBy: back).count == 2, "\(stopped.stderr)")
        #expect(!stopped.stderr.contains("no reading of [sensor.co2]"), "\(stopped.stderr)")

        // The logbook and its exports.
        let rows = try await Self.rows(world)
        let co2 = try #require(Self.named(rows, "co2").last)
        #expect(co2["co2_ppm"] as? Double == 845 && co2["temperature_c"] as? Double == 21.5, "\(co2)")
        #expect(
            co2["relative_humidity"] as? Double == 41 && co2["pm2_5"] is NSNull && co2["model"] as? String == "scd30")
        let bme = try #require(Self.named(rows, "room").last)
        // At each quantity's precision (21.375 °C, 45.123 %, 1013.2500000000001 hPa as read).
        #expect(bme["temperature_c"] as? Double == 21.38 && bme["relative_humidity"] as? Double == 45.1, "\(bme)")
        #expect(bme["pressure_hpa"] as? Double == 1013.25 && bme["co2_ppm"] is NSNull, "\(bme)")
        let particulate = try #require(Self.named(rows, "sensor").last)
        #expect(particulate["pm2_5"] as? Double == 14.2 && particulate["co2_ppm"] is NSNull, "\(particulate)")
        let csv = try await world.run(["log", "export", "--format", "csv", "--kind", "sensor"])
        let header = (csv.stdout.components(separatedBy: "\r\n").first ?? "").split(separator: ",").map(String.init)
        #expect(["name", "co2_ppm", "pressure_hpa", "measured_pm2_5"].allSatisfy(header.contains), "\(header)")
        #expect(csv.stdout.contains(",co2,") || csv.stdout.contains(",co2\r\n"), "\(csv.stdout.prefix(600))")
        let gpx = try await world.run(["log", "export", "--format", "gpx"])
        #expect(gpx.stdout.contains("<name>co2: CO₂ 845 ppm, 21.5 °C, 41 %</name>"), "\(gpx.stdout.suffix(900))")

        // MQTT: the rows under history, the latest of each on its measured topic, and the
        // entities Home Assistant discovers, in its units.
        let history = subscriber.messages.filter { $0.topic == "airloc/climate/history" }.compactMap {
            Self.json($0.payload)
        }
        #expect(history.contains { $0["name"] as? String == "co2" && $0["co2_ppm"] as? Double == 845 })
        #expect(history.contains { $0["name"] as? String == "room" && $0["pressure_hpa"] is Double })
        let measured = try #require(
            subscriber.messages.last { $0.topic == "airloc/climate/measured/co2" }.flatMap { Self.json($0.payload) })
        #expect(measured["co2_ppm"] as? Double == 845 && measured["name"] as? String == "co2", "\(measured)")
        let configs = subscriber.messages.filter {
            $0.topic.hasPrefix("homeassistant/") && $0.topic.hasSuffix("/config")
        }
        .compactMap { Self.json($0.payload) }
        let entities = Dictionary(
            configs.compactMap { config in
                (config["unique_id"] as? String).map { ($0, config) }
            }, uniquingKeysWith: { _, last in last })
        let node = try #require(entities.keys.first { $0.hasSuffix("_co2_co2") }.map { String($0.dropLast(8)) })
        for (object, deviceClass, unit, topic) in [
            ("co2_co2", "carbon_dioxide", "ppm", "measured/co2"),
            ("co2_temperature", "temperature", "°C", "measured/co2"),
            ("room_humidity", "humidity", "%", "measured/room"),
            ("room_atmospheric_pressure", "atmospheric_pressure", "hPa", "measured/room"),
        ] {
            let entity = try #require(entities["\(node)_\(object)"], "\(object) in \(entities.keys.sorted())")
            #expect(
                entity["device_class"] as? String == deviceClass && entity["unit_of_measurement"] as? String == unit)
            #expect(entity["state_class"] as? String == "measurement")
            #expect(entity["state_topic"] as? String == "airloc/climate/\(topic)")
        }
        #expect(entities["\(node)_co2_atmospheric_pressure"] == nil, "an SCD30 measures no pressure")
        try await subscriber.stop()
        try await broker.stop()
    }
}
