import Foundation
import TestSupport
import Testing

/// `airloc log run` with a particulate sensor: readings logged beside the track and the
/// model air, through the one loop; a sensor pulled out stops neither, is said once, and
/// is read again when it is plugged back in; the rows come out of every export.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3")))
struct LogSensorEndToEndTests {
    static let config = """
        [sensor]
        model = pms5003t
        warm-up-seconds = 2
        sample-seconds = 2
        timeout = 3
        interval = 10
        """

    @Test func aSensorUnpluggedMidRunIsSaidOnceAndReadAgainWhenItReturns() async throws {
        let world = try await AirlocWorld(config: Self.config)
        defer { world.stop() }
        let link = world.home.file("airloc-pm").path
        var environment = world.environment
        environment["AIRLOC_SENSOR_DEVICE"] = link
        var sensor: SensorDouble? = try await SensorDouble.start("pms5003t", pm25: 30, humidity: 55, link: link)
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: environment)
        let first = try await LogEndToEndTests.waitForStatus(world, "a sensor row") {
            ($0["sensor_rows"] as? Int ?? 0) >= 1
        }
        #expect((first["track_rows"] as? Int ?? 0) >= 1, "\(first)")

        // Pulled out: the pty and its link are gone.
        sensor?.stop()
        sensor = nil
        try? FileManager.default.removeItem(atPath: link)
        try await Poll.until("the logger to say the sensor gave no reading") {
            logger.errors.contains("no sensor reading")
        }
        let firstTrack = first["track_rows"] as? Int ?? 0
        let tracked = try await LogEndToEndTests.waitForStatus(world, "the track going on without the sensor") {
            ($0["track_rows"] as? Int ?? 0) > firstTrack
        }
        #expect((tracked["air_rows"] as? Int ?? 0) >= 1, "the model air is logged without the sensor: \(tracked)")

        // Plugged back in.
        let back = try await SensorDouble.start("pms5003t", pm25: 30, humidity: 55, link: link)
        defer { back.stop() }
        try await Poll.until("the logger to say the sensor is back") { logger.errors.contains("gives readings again") }
        let stopped = try await logger.terminate()
        #expect(stopped.status == 0, "\(stopped)")
        #expect(stopped.stderr.occurrences(of: "no sensor reading") == 1, "said once:\n\(stopped.stderr)")
        #expect(stopped.stderr.contains("`airloc doctor` checks the sensor"), "\(stopped.stderr)")

        let export = try await world.run(["log", "export", "--format", "ndjson", "--kind", "sensor"])
        #expect(export.status == 0, "\(export)")
        let rows = export.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(rows.count >= 2, "\(export.stdout)")
        for row in rows {
            #expect(row["kind"] as? String == "sensor" && row["pm2_5"] as? Double == 30, "\(row)")
            #expect(row["relative_humidity"] as? Double == 55 && row["latitude"] as? Double != nil, "\(row)")
        }
        for format in ["csv", "gpx", "geojson"] {
            let file = world.home.file("day.\(format)")
            let other = try await world.run(["log", "export", "--format", format, "--output", file.path])
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            #expect(other.status == 0 && text.contains("pms5003t"), "\(format): \(other)")
        }
    }
}
