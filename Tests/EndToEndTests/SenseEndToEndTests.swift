import Foundation
import TestSupport
import Testing

/// `airloc sense` through the built binary, against a sensor double on a pseudo-terminal
/// speaking each family's protocol: the values a user reads, the sensor put back to
/// sleep, and every way a sensor fails ending in a clear error within the timeout.
struct SenseEndToEndTests {
    /// A home whose configuration names `model` on the double's pty. Short warm-up and
    /// window: the rules are the cycle's (SensorCycleTests); this proves the wiring.
    static func home(_ model: String, device: String, extra: String = "") throws -> (
        TemporaryDirectory, [String: String]
    ) {
        let home = try TemporaryDirectory()
        let config = home.file("config/airloc")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try """
        [sensor]
        model = \(model)
        warm-up-seconds = 2
        sample-seconds = 3
        timeout = 4
        \(extra)
        """.write(to: config.appendingPathComponent("airloc.conf"), atomically: true, encoding: .utf8)
        return (home, AirlocBinary.environment(home: home.url, extra: ["AIRLOC_SENSOR_DEVICE": device]))
    }

    static func document(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    @Test(arguments: [
        ("sds011", 12.3, 20.1, "A160"), ("pms5003", 12.0, 20.0, nil), ("pms5003t", 12.0, 20.0, nil),
        ("pmsa003", 12.0, 20.0, nil), ("sps30", 12.3, 20.1, "DOUBLE0001"),
    ])
    func everyFamilyIsReadAndPutBackToSleep(model: String, pm25: Double, pm10: Double, serial: String?) async throws {
        let sensor = try await SensorDouble.start(model, pm25: 12.3, pm10: 20.1, humidity: 45.2)
        let (home, environment) = try Self.home(model, device: sensor.device)
        defer { home.remove() }
        let result = try await AirlocBinary.run(["sense", "--json"], environment: environment)
        #expect(result.status == 0, "\(result)\n\(sensor.log)")
        let json = Self.document(result.stdout)
        #expect(json["schema"] as? String == "airloc.sense/1" && json["model"] as? String == model, "\(json)")
        #expect(json["pm2_5"] as? Double == pm25 && json["pm10"] as? Double == pm10, "\(json)")
        #expect(json["serial"] as? String == serial, "\(json)")
        #expect((json["samples"] as? Int ?? 0) >= 2 && json["window_s"] as? Double == 3, "\(json)")
        #expect(json["flags"] as? [String] == ["warm-up-cut-short"], "a 2 s warm-up is shorter than the sensor needs")
        if model == "pms5003t" {
            #expect(json["temperature_c"] as? Double == 21.5 && json["relative_humidity"] as? Double == 45.2, "\(json)")
        } else {
            #expect(json["relative_humidity"] is NSNull, "\(json)")
        }
        try await sensor.waitFor("CMD sleep")
        #expect(sensor.log.hasSuffix("CMD sleep\n") || sensor.log.contains("CMD sleep"), "laser off after the reading")
    }

    @Test func theCardSaysWhatWasMeasuredAndHow() async throws {
        let sensor = try await SensorDouble.start("sds011", pm25: 40.2, pm10: 55)
        let (home, environment) = try Self.home("sds011", device: sensor.device)
        defer { home.remove() }
        let result = try await AirlocBinary.run(["sense"], environment: environment)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Measured here  PM2.5 40.2 µg/m³ · PM10 55.0"), "\(result)")
        #expect(result.stdout.contains("SDS011 on \(sensor.device) · serial A160 · "), "\(result)")
        #expect(result.stdout.contains("US AQI 113 (Unhealthy for Sensitive Groups), an instantaneous estimate"))
    }

    @Test func corruptFramesAreSkippedAndNeverAveraged() async throws {
        let sensor = try await SensorDouble.start("pms5003", pm25: 30, pm10: 40, fault: "corrupt-odd")
        let (home, environment) = try Self.home("pms5003", device: sensor.device)
        defer { home.remove() }
        let result = try await AirlocBinary.run(["sense", "--json"], environment: environment)
        #expect(result.status == 0, "\(result)")
        let json = Self.document(result.stdout)
        #expect(json["pm2_5"] as? Double == 30 && json["pm10"] as? Double == 40, "only good frames: \(json)")
    }

    @Test(arguments: [
        ("silent", 69, "did not answer"), ("garbage", 69, "no valid sensor frame"),
        ("corrupt", 69, "sends no valid readings"), ("truncate", 69, "sends no valid readings"),
    ])
    func aSensorThatSendsNoValidFrameFailsWithinTheTimeout(fault: String, status: Int32, said: String) async throws {
        let sensor = try await SensorDouble.start("sds011", fault: fault)
        // A warm-up longer than any test: failing must not wait it out.
        let (home, environment) = try Self.home("sds011", device: sensor.device, extra: "warm-up-seconds = 600")
        defer { home.remove() }
        let result = try await AirlocBinary.run(["sense", "--json"], environment: environment, timeout: 300)
        #expect(result.status == status, "\(result)")
        #expect(result.stderr.contains(said), "\(result)")
        let error = Self.document(result.stdout)["error"] as? [String: Any]
        #expect(
            error?["code"] as? Int == Int(status)
                && Self.document(result.stdout)["schema"] as? String == "airloc.sense/1")
    }

    @Test func aSensorPulledOutMidReadingIsAnIOError() async throws {
        let sensor = try await SensorDouble.start("pms5003", fault: "vanish-after=2")
        let (home, environment) = try Self.home("pms5003", device: sensor.device)
        defer { home.remove() }
        let result = try await AirlocBinary.run(["sense"], environment: environment)
        #expect(result.status == 74, "\(result)\n\(sensor.log)")
        #expect(result.stderr.contains("went away"), "\(result)")
    }

    @Test func noDeviceAndNoSensorAreSaidPlainly() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let none = try await AirlocBinary.run(["sense"], environment: AirlocBinary.environment(home: home.url))
        #expect(none.status == 78 && none.stderr.contains("no sensor configured: set [sensor] model"), "\(none)")
        let (configured, environment) = try Self.home("sps30", device: home.file("no-such-tty").path)
        defer { configured.remove() }
        let missing = try await AirlocBinary.run(["sense"], environment: environment)
        #expect(
            missing.status == 74
                && missing.stderr.contains("does not exist (is the sensor plugged in? [sensor] device"),
            "\(missing)")
        #expect(missing.stderr.components(separatedBy: "plugged in").count == 2, "said once: \(missing.stderr)")
        // A regular file where the device should be: said as such, not "Inappropriate ioctl".
        let file = home.file("not-a-tty")
        try "".write(to: file, atomically: true, encoding: .utf8)
        let (regular, fileEnvironment) = try Self.home("sds011", device: file.path)
        defer { regular.remove() }
        let notSerial = try await AirlocBinary.run(["sense"], environment: fileEnvironment)
        #expect(notSerial.status == 74 && notSerial.stderr.contains("not a serial device"), "\(notSerial)")
        #expect(!notSerial.stderr.contains("Inappropriate ioctl"), "\(notSerial)")
        let mismatched = try Self.home("sds011", device: "/dev/null", extra: "correction = epa-pms")
        defer { mismatched.0.remove() }
        let refused = try await AirlocBinary.run(["sense"], environment: mismatched.1)
        #expect(
            refused.status == 78 && refused.stderr.contains("needs humidity: a PMS5003T's own, or a [sensor.NAME] one"))
    }
}
