import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every way out of a reading puts an answering sensor to sleep: Ctrl-C during `sense`,
/// and SIGTERM (what `systemctl stop` sends) during `sense` or during the logger's
/// reading. Otherwise the last command the sensor saw is "wake", and its fan and laser run
/// on until the next start, wearing out a part rated for about 8,000 hours.
@Suite(.enabled(if: ExternalTool.available("python3", "gpsfake")))
struct SensorSleepEndToEndTests {
    /// A warm-up long enough that the signal always lands in it.
    static let config = """
        [sensor]
        model = MODEL
        warm-up-seconds = 60
        sample-seconds = 5
        timeout = 10
        """

    /// The log after the last wake holds a sleep: the sensor was put to sleep after it was woken.
    static func sleptAfterWaking(_ log: String) -> Bool {
        guard let wake = log.range(of: "CMD wake", options: .backwards) else { return false }
        return log[wake.upperBound...].contains("CMD sleep")
    }

    /// The log after the last wake holds a reading sent.
    static func answeredAfterWaking(_ log: String) -> Bool {
        guard let wake = log.range(of: "CMD wake", options: .backwards) else { return false }
        return log[wake.upperBound...].contains("DATA ")
    }

    @Test(arguments: [("sds011", SIGINT), ("pms5003", SIGINT), ("sps30", SIGINT), ("sds011", SIGTERM)])
    func senseInterruptedMidReadingPutsTheSensorToSleep(model: String, signal: Int32) async throws {
        let sensor = try await SensorDouble.start(model)
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let config = home.file("config/airloc")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try Self.config.replacingOccurrences(of: "MODEL", with: model)
            .write(to: config.appendingPathComponent("airloc.conf"), atomically: true, encoding: .utf8)
        let sense = try ChildProcess(
            AirlocBinary.path, ["sense"],
            environment: AirlocBinary.environment(home: home.url, extra: ["AIRLOC_SENSOR_DEVICE": sensor.device]))
        // Woken and answering: a reading is under way, in its warm-up.
        try await sensor.waitUntil("data after the wake", Self.answeredAfterWaking)
        sense.signal(signal)
        let result = try await sense.wait()
        #expect(result.status == 128 + signal, "\(result)")
        #expect(result.stderr.contains("interrupted") && result.stderr.contains("put to sleep"), "\(result.stderr)")
        do { try await sensor.waitUntil("a sleep after the wake", Self.sleptAfterWaking) } catch {
            Issue.record("\(error)\n--- the double's log\n\(sensor.log)")
        }
    }

    /// `now` reads the sensor beside the services; Ctrl-C then ends it by the signal, as a
    /// shell expects, after the sensor is asleep.
    @Test func nowInterruptedMidReadingPutsTheSensorToSleep() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let sensor = try await SensorDouble.start("sds011")
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let config = home.file("config/airloc")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try Self.config.replacingOccurrences(of: "MODEL", with: "sds011")
            .write(to: config.appendingPathComponent("airloc.conf"), atomically: true, encoding: .utf8)
        let now = try ChildProcess(
            AirlocBinary.path, ["now", "--lat", "52.52", "--lon", "13.405"],
            environment: AirlocBinary.environment(
                home: home.url, servicesAt: double,
                extra: [
                    "AIRLOC_SENSOR_DEVICE": sensor.device, "AIRLOC_LOG_DATABASE": home.file("logbook.sqlite").path,
                ]))
        try await sensor.waitUntil("data after the wake", Self.answeredAfterWaking)
        now.signal(SIGINT)
        let result = try await now.wait()
        #expect(result.status == 128 + SIGINT && result.stderr.contains("put to sleep"), "\(result)")
        do { try await sensor.waitUntil("a sleep after the wake", Self.sleptAfterWaking) } catch {
            Issue.record("\(error)\n--- the double's log\n\(sensor.log)")
        }
    }

    @Test(arguments: ["sds011", "pms5003", "sps30"])
    func theLoggerStoppedMidReadingPutsTheSensorToSleep(model: String) async throws {
        let world = try await AirlocWorld(config: Self.config.replacingOccurrences(of: "MODEL", with: model))
        defer { world.stop() }
        let sensor = try await SensorDouble.start(model)
        var environment = world.environment
        environment["AIRLOC_SENSOR_DEVICE"] = sensor.device
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: environment)
        try await sensor.waitUntil("data after the wake", Self.answeredAfterWaking)
        let stopped = try await logger.terminate()
        #expect(stopped.status == 0, "\(stopped)")
        do { try await sensor.waitUntil("a sleep after the wake", Self.sleptAfterWaking) } catch {
            Issue.record("\(error)\n--- the double's log\n\(sensor.log)")
        }
    }
}
