import Foundation
import TestSupport
import Testing

/// A fixed station, the usual sensor.community setup: `log run --lat --lon` with a sensor
/// writes one track point and hours of readings. Its day draws (it used to exit 66,
/// "nothing to draw"), with the place named and the map a single point.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3")))
struct LogPlotStationEndToEndTests {
    static let config = """
        [sensor]
        model = sds011
        warm-up-seconds = 1
        sample-seconds = 2
        timeout = 5
        interval = 10
        """

    @Test func aFixedStationsDayIsDrawn() async throws {
        let world = try await AirlocWorld(config: Self.config)
        defer { world.stop() }
        let sensor = try await SensorDouble.start("sds011", pm25: 40, pm10: 50)
        var environment = world.environment
        environment["AIRLOC_SENSOR_DEVICE"] = sensor.device
        let logger = try ChildProcess(
            AirlocBinary.path, ["log", "run", "--lat", "52.52", "--lon", "13.405"], environment: environment)
        let status = try await LogEndToEndTests.waitForStatus(world, "two sensor rows") {
            ($0["sensor_rows"] as? Int ?? 0) >= 2
        }
        #expect(status["track_rows"] as? Int == 1, "a fixed place is one track point: \(status)")
        let stopped = try await logger.terminate()
        #expect(stopped.status == 0, "\(stopped)")

        let file = world.home.file("station.svg")
        let plot = try await world.run(["log", "plot", "--output", file.path])
        #expect(plot.status == 0, "\(plot)")
        let elements = try LogPlotEndToEndTests.parse(try Data(contentsOf: file))
        #expect(elements.first { $0.name == "title" }?.attributes["#text"]?.hasPrefix("airloc: Berlin,") == true)
        #expect(elements.first { $0.attributes["id"] == "start-name" }?.attributes["#text"] == "Berlin")
        let measured = try #require(elements.first { $0.attributes["id"] == "measured-index" }, "no measured line")
        // 40 µg/m³ is AQI 112: the axis reaches the top of the USG band.
        #expect(elements.first { $0.attributes["id"] == "index-top" }?.attributes["#text"] == "150")
        #expect((measured.attributes["d"] ?? "").contains("H"), "\(measured.attributes)")
    }
}
