import Foundation
import TestSupport
import Testing

/// Examples/LoggerExample, the program a Swift field-logging script starts from: built
/// from the library alone, it must locate, report and print a JSON line per reading.
@Suite(.enabled(if: ExternalTool.available("python3", "mosquitto_sub")))
struct ExampleLoggerEndToEndTests {
    static var path: String {
        URL(fileURLWithPath: AirlocBinary.path).deletingLastPathComponent().appendingPathComponent(
            "airloc-example-logger"
        ).path
    }

    @Test func givenCoordinatesGiveOneJSONLinePerReading() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let result = try await ChildProcess.run(
            Self.path, ["--lat", "52.52", "--lon", "13.405", "--count", "2", "--every", "0"],
            environment: AirlocBinary.environment(home: home.url, servicesAt: double))
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(result.stdout)")
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["us_aqi"] as? Int == 41)
            #expect(object["place"] as? String == "Berlin, Berlin, Germany")
            #expect((object["pollutants"] as? [String: Double])?["pm2_5"] == 8.8)
        }
        // The second reading came from the cache, and what was sent was rounded.
        let requests = try double.requests().filter { $0.path == "/v1/air-quality" }
        #expect(requests.count == 1)
        #expect(requests.allSatisfy { !$0.query.contains("13.405") }, "\(requests)")
    }

    @Test func withoutPermissionItSensesNothingAndSaysSo() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let port = try GPSFake.freePort()
        let result = try await ChildProcess.run(
            Self.path, ["--count", "1"],
            environment: AirlocBinary.environment(home: home.url, extra: ["AIRLOC_GPSD": "127.0.0.1:\(port)"]))
        #expect(result.status == 77, "\(result)")
        #expect(result.stderr.contains("not yet allowed"))
        #expect(result.stdout.isEmpty)
    }

    /// Examples/FleetLoggerExample: the library's logger and publisher, run as `log run`
    /// runs them, deliver rows to a real broker; SIGTERM stops it cleanly, published.
    @Test func theFleetExampleLogsAndPublishes() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let broker = try await MosquittoBroker.start()
        let subscriber = try await MQTTSubscriber.start(broker: broker, id: "example-consumer", topics: ["airloc/#"])
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let example = URL(fileURLWithPath: Self.path).deletingLastPathComponent()
            .appendingPathComponent("airloc-example-fleet-logger").path
        let logger = try ChildProcess(
            example, ["--lat", "52.52", "--lon", "13.405"],
            environment: AirlocBinary.environment(
                home: home.url, servicesAt: double,
                extra: ["AIRLOC_MQTT_URL": broker.url]))
        try await Poll.until("an air reading at the subscriber") {
            subscriber.messages.contains { $0.topic.hasSuffix("/history") && $0.payload.contains(#""kind":"air""#) }
        }
        logger.signal(SIGTERM)
        let stopped = try await logger.wait()
        #expect(stopped.status == 0, "\(stopped)")
        #expect(stopped.stderr.contains("publishing to mqtt://127.0.0.1:\(broker.port)"), "\(stopped.stderr)")
        try await Poll.until("offline on a clean stop") {
            subscriber.messages.last { $0.topic.hasSuffix("/status") }?.payload == "offline"
        }
        try await subscriber.stop()
        try await broker.stop()
    }
}
