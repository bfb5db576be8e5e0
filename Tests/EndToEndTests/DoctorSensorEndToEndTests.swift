import Foundation
import TestSupport
import Testing

/// `airloc doctor` looks at the configured sensor: there, openable, answering; each
/// problem with what to do about it, and the sensor put back to sleep after the look.
@Suite(.enabled(if: ExternalTool.available("python3")))
struct DoctorSensorEndToEndTests {
    static func check(_ stdout: String) -> [String: Any]? {
        let document = try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]
        return (document?["checks"] as? [[String: Any]])?.first { $0["name"] as? String == "sensor" }
    }

    static func home(device: String) throws -> (TemporaryDirectory, [String: String]) {
        let home = try TemporaryDirectory()
        let config = home.file("config/airloc")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try
            "[location]\nproviders = manual\nlatitude = 52.52\nlongitude = 13.405\n[sensor]\nmodel = sds011\ntimeout = 3\n"
            .write(to: config.appendingPathComponent("airloc.conf"), atomically: true, encoding: .utf8)
        return (home, AirlocBinary.environment(home: home.url, extra: ["AIRLOC_SENSOR_DEVICE": device]))
    }

    @Test func anAnsweringSensorIsNamedWithItsSerialAndPutBackToSleep() async throws {
        let sensor = try await SensorDouble.start("sds011")
        let (home, environment) = try Self.home(device: sensor.device)
        defer { home.remove() }
        let result = try await AirlocBinary.run(["doctor", "--json"], environment: environment)
        let check = try #require(Self.check(result.stdout), "\(result)")
        #expect(check["status"] as? String == "ok", "\(check)")
        #expect((check["detail"] as? String)?.contains("SDS011 on \(sensor.device) answers, serial A160") == true)
        try await sensor.waitFor("CMD sleep")
    }

    @Test(arguments: [("missing", "does not exist", "udev rule"), ("silent", "did not answer", "wiring")])
    func aSensorThatCannotBeReadFailsWithWhatToDo(fault: String, said: String, advice: String) async throws {
        let sensor = fault == "missing" ? nil : try await SensorDouble.start("sds011", fault: fault)
        let (home, environment) = try Self.home(device: sensor?.device ?? "/nonexistent/airloc-pm")
        defer { home.remove() }
        let result = try await AirlocBinary.run(["doctor", "--json"], environment: environment, timeout: 300)
        #expect(result.status == 69, "\(result)")
        let check = try #require(Self.check(result.stdout), "\(result)")
        #expect(
            check["status"] as? String == "fail" && (check["detail"] as? String)?.contains(said) == true, "\(check)")
        #expect((check["advice"] as? String)?.contains(advice) == true, "\(check)")
    }
}
