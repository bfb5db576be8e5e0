import Foundation
import TestSupport
import Testing

/// Examples/LoggerExample, the program a Swift field-logging script starts from: built
/// from the library alone, it must locate, report and print a JSON line per reading.
@Suite(.enabled(if: ExternalTool.available("python3")))
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
}
