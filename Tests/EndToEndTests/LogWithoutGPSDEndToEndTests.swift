import Foundation
import TestSupport
import Testing

/// `airloc log run` where gpsd cannot be reached from the start: said at once (not 40 s
/// of silence), in `log status`, with doctor's remedy; and when gpsd comes, said again.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3")))
struct LogWithoutGPSDEndToEndTests {
    @Test func gpsdUnreachableAtStartIsSaidAndItsReturnToo() async throws {
        let world = try await AirlocWorld()
        defer { world.stop() }
        // A port nobody listens on; gpsd is started there later.
        let port = try GPSFake.freePort()
        var environment = world.environment
        environment["AIRLOC_GPSD"] = "127.0.0.1:\(port)"
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: environment)
        try await Poll.until("a warning that there is no position") { logger.errors.contains("no position") }
        #expect(logger.errors.contains("airloc doctor"), "the remedy is named: \(logger.errors)")
        let down = try await LogEndToEndTests.waitForStatus(world, "the last error") { $0["last_error"] is String }
        #expect((down["last_error"] as? String)?.contains("no position") == true, "\(down)")
        #expect(down["last_error_at"] is String, "the error has its time: \(down)")

        let gpsd = try await GPSFake.start(log: world.home.file("track.nmea"), port: port)
        defer { gpsd.stop() }
        try await Poll.until("the logger to say the position is back") { logger.errors.contains("position back") }
        let back = try await LogEndToEndTests.waitForStatus(world, "a track point and no last error") {
            ($0["track_rows"] as? Int ?? 0) >= 1 && $0["last_error"] is NSNull
        }
        #expect(back["last_error_at"] is NSNull, "\(back)")
        let stopped = try await logger.terminate()
        #expect(stopped.status == 0, "\(stopped)")
        #expect(
            stopped.stderr.occurrences(of: "no position") == 1, "said once while gpsd was retried:\n\(stopped.stderr)")
        #expect(stopped.stderr.contains("reachable again"), "\(stopped.stderr)")
    }

    /// A place chosen in the picker, or with `airloc use`, is a manual location for `now`
    /// and `air`, not where the device is: with gpsd down, the logger wrote track points at
    /// that city's centre (`provider manual`) and flapped between "position back (manual)"
    /// and "no position".
    @Test func aChosenPlaceIsNotWhereTheLoggerIs() async throws {
        let world = try await AirlocWorld()
        defer { world.stop() }
        let chosen = try await world.run(["use", "Berlin", "--first"])
        #expect(chosen.status == 0, "\(chosen)")
        var environment = world.environment
        environment["AIRLOC_GPSD"] = "127.0.0.1:\(try GPSFake.freePort())"
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: environment)
        try await Poll.until("a warning that there is no position") { logger.errors.contains("no position") }
        let stopped = try await logger.terminate()
        #expect(stopped.status == 0, "\(stopped)")
        #expect(!stopped.stderr.contains("manual"), "\(stopped.stderr)")
        let status = try await LogEndToEndTests.waitForStatus(world, "the logbook") { _ in true }
        #expect(status["track_rows"] as? Int == 0, "no track point at the chosen place: \(status)")
        // `locate` still takes it: it is the user's manual location there.
        let located = try await AirlocBinary.run(["locate", "--json"], environment: environment)
        let document = LogEndToEndTests.json(located.stdout) ?? [:]
        #expect((document["location"] as? [String: Any])?["provider"] as? String == "manual", "\(located)")
    }
}
