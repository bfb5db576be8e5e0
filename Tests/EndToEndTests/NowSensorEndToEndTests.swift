import Foundation
import TestSupport
import Testing

/// `airloc now` with a particulate sensor: the measured value beside the model's on the
/// card and in the JSON, the logger's fresh reading used while it holds the sensor, the
/// NowCast from the logbook's hours, and a missing sensor reported without failing `now`.
@Suite(.enabled(if: ExternalTool.available("python3")))
struct NowSensorEndToEndTests {
    static let config = """
        [sensor]
        model = sds011
        warm-up-seconds = 2
        sample-seconds = 2
        timeout = 3
        """

    static func home(_ double: HTTPDouble, device: String, extra: String = "") throws -> (
        TemporaryDirectory, [String: String]
    ) {
        let home = try TemporaryDirectory()
        let config = home.file("config/airloc")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try (Self.config + "\n" + extra).write(
            to: config.appendingPathComponent("airloc.conf"), atomically: true, encoding: .utf8)
        return (
            home,
            AirlocBinary.environment(
                home: home.url, servicesAt: double,
                extra: ["AIRLOC_SENSOR_DEVICE": device, "AIRLOC_LOG_DATABASE": home.file("logbook.sqlite").path])
        )
    }

    static func measured(_ stdout: String) -> [String: Any]? {
        let document = try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]
        return document?["measured"] as? [String: Any]
    }

    @Test func theCardAndTheJSONCarryTheMeasuredValueBesideTheModel() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let sensor = try await SensorDouble.start("sds011", pm25: 40.2, pm10: 55)
        let (home, environment) = try Self.home(double, device: sensor.device)
        defer { home.remove() }
        let card = try await AirlocBinary.run(["now", "--lat", "52.52", "--lon", "13.405"], environment: environment)
        #expect(card.status == 0, "\(card)")
        #expect(card.stdout.contains("PM2.5 40.2 µg/m³ measured here (SDS011, 2 s mean) · model "), "\(card.stdout)")
        let json = try await AirlocBinary.run(
            ["now", "--lat", "52.52", "--lon", "13.405", "--json"], environment: environment)
        let measured = try #require(Self.measured(json.stdout), "\(json)")
        #expect(measured["pm2_5"] as? Double == 40.2 && measured["source"] as? String == "sensor", "\(measured)")
        #expect(measured["error"] is NSNull && measured["serial"] as? String == "A160", "\(measured)")
        // 40.2 µg/m³ is Unhealthy for Sensitive Groups whatever the model says: the card leads with it.
        #expect(measured["category"] as? String == "unhealthy_for_sensitive_groups", "\(measured)")
        #expect(measured["leads"] as? Bool == true, "\(measured)")
        #expect(card.stdout.contains("Unhealthy for Sensitive Groups 😷 measured here"), "\(card.stdout)")
    }

    @Test func aMissingSensorIsSaidAndTheReportStands() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let (home, environment) = try Self.home(double, device: "/nonexistent/airloc-pm")
        defer { home.remove() }
        let card = try await AirlocBinary.run(["now", "--lat", "52.52", "--lon", "13.405"], environment: environment)
        #expect(card.status == 0, "the model's report is still the answer: \(card)")
        #expect(card.stdout.contains("Air quality  ") && card.stdout.contains("Measured here unavailable"), "\(card)")
        #expect(card.stderr.contains("no sensor reading"), "\(card)")
        let json = try await AirlocBinary.run(
            ["now", "--lat", "52.52", "--lon", "13.405", "--json"], environment: environment)
        #expect(json.status == 0, "\(json)")
        let error = try #require(Self.measured(json.stdout)?["error"] as? [String: Any], "\(json.stdout)")
        #expect((error["message"] as? String)?.contains("does not exist") == true, "\(error)")
    }

    /// The logger's reading of half a minute ago stands for now (the logger holds the
    /// sensor); the NowCast comes from the logbook's last three hours: c1 30, c2 20, c3 10
    /// µg/m³ give 24.2 µg/m³, AQI 79 (NowCastTests works it by hand).
    @Test func theLoggersFreshReadingAndTheNowCastComeFromTheLogbook() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        // An hour's interval: the seeded reading stays fresh (two intervals) however slowly a
        // busy machine runs the test; a 60 s one made it stale after two minutes.
        let (home, environment) = try Self.home(double, device: "/nonexistent/airloc-pm", extra: "interval = 3600")
        defer { home.remove() }
        let bench = URL(fileURLWithPath: AirlocBinary.path).deletingLastPathComponent()
            .appendingPathComponent("airloc-bench").path
        let seeded = try await ChildProcess.run(
            bench, ["sensor-write", home.file("logbook.sqlite").path, "0.5:30", "70:20", "130:10"], environment: [:])
        #expect(seeded.status == 0, "\(seeded)")
        let json = try await AirlocBinary.run(
            ["now", "--lat", "52.52", "--lon", "13.405", "--json"], environment: environment)
        let measured = try #require(Self.measured(json.stdout), "\(json)")
        #expect(measured["source"] as? String == "logbook" && measured["pm2_5"] as? Double == 30, "\(measured)")
        #expect(measured["nowcast_us_aqi"] as? Int == 79, "\(measured)")
        let card = try await AirlocBinary.run(["now", "--lat", "52.52", "--lon", "13.405"], environment: environment)
        // "30 s ago", or "2 min ago" on a machine busy enough: the age is the clock's, not the test's.
        #expect(card.stdout.contains(" ago) · model ") && card.stdout.contains("· NowCast AQI 79"), "\(card.stdout)")
    }

    /// `now --watch` reads the sensor through the same loop as the logger and prints the
    /// report again when a reading arrives.
    @Test func theWatchShowsEachReadingAsItArrives() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let sensor = try await SensorDouble.start("sds011", pm25: 8.5, pm10: 11)
        let (home, environment) = try Self.home(double, device: sensor.device)
        defer { home.remove() }
        let watch = try ChildProcess(
            AirlocBinary.path, ["now", "--watch", "--json", "--lat", "52.52", "--lon", "13.405"],
            environment: environment)
        try await watch.waitForOutput("a report with the measured reading", timeout: 120) {
            $0.contains("\"source\":\"sensor\"")
        }
        let stopped = try await watch.terminate()
        #expect(stopped.status == 0, "\(stopped)")
        let lines = stopped.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let measured = try #require(lines.last?["measured"] as? [String: Any], "\(stopped.stdout)")
        #expect(measured["pm2_5"] as? Double == 8.5 && measured["pm10"] as? Double == 11, "\(measured)")
    }
}
