import Foundation
import TestSupport
import Testing

/// The sensor belongs to one program: while `log run` holds it, `sense` and `doctor` show
/// the logger's latest reading and name its PID, and never write to the port (which
/// would split the frames with the logger, or put its sensor to sleep mid-warm-up).
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3")))
struct SensorLockEndToEndTests {
    static let config = """
        [sensor]
        model = sds011
        warm-up-seconds = 2
        sample-seconds = 2
        timeout = 5
        interval = 3600
        """

    @Test func senseAndDoctorBesideALoggerNeverTouchThePort() async throws {
        let world = try await AirlocWorld(config: Self.config)
        defer { world.stop() }
        let sensor = try await SensorDouble.start("sds011", pm25: 33.3, pm10: 44.4)
        var environment = world.environment
        environment["AIRLOC_SENSOR_DEVICE"] = sensor.device
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: environment)
        _ = try await LogEndToEndTests.waitForStatus(world, "a sensor row") { ($0["sensor_rows"] as? Int ?? 0) >= 1 }
        // The logger's reading is over (the sensor asleep) and the next is an hour away: any
        // command from here on came from sense or doctor.
        try await sensor.waitUntil("the logger's reading to end", SensorSleepEndToEndTests.sleptAfterWaking)
        let before = sensor.log

        let sense = try await AirlocBinary.run(["sense", "--json"], environment: environment)
        #expect(sense.status == 0, "\(sense)")
        let json = (try? JSONSerialization.jsonObject(with: Data(sense.stdout.utf8)) as? [String: Any]) ?? [:]
        #expect(json["source"] as? String == "logbook" && json["pm2_5"] as? Double == 33.3, "\(json)")
        #expect(json["held_by_pid"] as? Int == Int(logger.pid), "\(json)")
        #expect(sense.stderr.contains("PID \(logger.pid)) holds the sensor"), "\(sense.stderr)")

        let doctor = try await AirlocBinary.run(["doctor"], environment: environment)
        #expect(doctor.stdout.contains("held by the logger (airloc, PID \(logger.pid))"), "\(doctor)")

        #expect(sensor.log == before, "a command reached the port beside the logger:\n\(sensor.log)")
        let stopped = try await logger.terminate()
        #expect(stopped.status == 0, "\(stopped)")

        // With the logger gone the lock is gone with it: sense reads the port itself.
        let alone = try await AirlocBinary.run(["sense", "--json"], environment: environment)
        #expect(alone.status == 0 && alone.stdout.contains("\"source\" : \"sensor\""), "\(alone)")
    }

    /// The sensor unplugged and plugged back in: it comes back on a new pseudo-terminal
    /// behind the same link (as udev's /dev/airloc-pm follows a USB adapter). The logger
    /// reads the new node and holds the new node's lock, so `sense` beside it still shows the
    /// logger's latest reading with its PID and `doctor` says the logger holds the sensor;
    /// neither writes to the new port.
    @Test func afterAReplugSenseAndDoctorStillDeferToTheLogger() async throws {
        let world = try await AirlocWorld(
            config: Self.config.replacingOccurrences(of: "interval = 3600", with: "interval = 15"))
        defer { world.stop() }
        let link = world.home.file("airloc-pm").path
        let first = try await SensorDouble.start("sds011", pm25: 33.3, pm10: 44.4, link: link)
        var environment = world.environment
        environment["AIRLOC_SENSOR_DEVICE"] = link
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: environment)
        defer { logger.stop() }
        _ = try await LogEndToEndTests.waitForStatus(world, "a sensor row") { ($0["sensor_rows"] as? Int ?? 0) >= 1 }
        // Back on another node behind the link, reading another value (made before the old
        // node goes, so that the kernel cannot hand out its number again), and unplugged.
        let second = try await SensorDouble.start("sds011", pm25: 55.5, pm10: 66.6, link: link)
        defer { second.stop() }
        first.stop()
        #expect(second.device != first.device, "a new node: \(second.device)")
        try await second.waitUntil(
            "the logger reading the plugged-back sensor", SensorSleepEndToEndTests.sleptAfterWaking)
        try await Poll.until("the plugged-back sensor's reading in the logbook") {
            let rows = try await world.run(["log", "export", "--format", "ndjson", "--kind", "sensor"])
            return rows.stdout.contains("55.5")
        }
        // The logger, frozen, sends nothing of its own on its next interval (15 s, which
        // sense and doctor may take on a busy machine): whatever reaches the port from here
        // on is theirs. It still holds the port's lock, as a busy logger does.
        kill(logger.pid, SIGSTOP)
        defer { kill(logger.pid, SIGCONT) }  // before `logger.stop()`, should anything throw
        let commands = { second.log.split(separator: "\n").filter { $0.hasPrefix("CMD") } }
        let before = commands()
        let sense = try await AirlocBinary.run(["sense", "--json"], environment: environment)
        let json = (try? JSONSerialization.jsonObject(with: Data(sense.stdout.utf8)) as? [String: Any]) ?? [:]
        #expect(sense.status == 0, "\(sense)")
        #expect(json["source"] as? String == "logbook" && json["pm2_5"] as? Double == 55.5, "\(json)")
        #expect(json["held_by_pid"] as? Int == Int(logger.pid), "\(json)")
        let doctor = try await AirlocBinary.run(["doctor"], environment: environment)
        #expect(doctor.stdout.contains("held by the logger (airloc, PID \(logger.pid))"), "\(doctor)")
        #expect(commands() == before, "a command reached the new port beside the logger:\n\(second.log)")
        kill(logger.pid, SIGCONT)
        let stopped = try await logger.terminate()
        #expect(stopped.status == 0, "\(stopped)")
    }
}
