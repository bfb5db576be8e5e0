import Foundation
import TestSupport
import Testing

/// An upload takes a track row only once its time is final. A device whose clock is an hour
/// behind the receiver (a Pi without a real-time clock or network): the first fixes are
/// logged by the system clock and re-stamped when GPS time is trusted, and Traccar is sent
/// every row with the time the logbook keeps, the first ones of the start included.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3")))
struct UploadTimeEndToEndTests {
    typealias Fleet = FleetEndToEndTests
    typealias Uploads = UploadEndToEndTests

    /// A logger at 1 Hz with one upload, Traccar's, to `servers` (device `pi7`).
    static func traccarConfig(_ servers: HTTPDouble) -> String {
        """
        [log]
        track-interval = 1
        [upload.traccar]
        type = traccar
        url = \(servers.baseURL)/traccar/
        id = pi7
        """
    }

    @Test func theFirstRowsOfAStartReachTraccarWithTheirGPSTimes() async throws {
        let servers = try await HTTPDouble.startUploadServers(["--traccar-id", "pi7"])
        defer { servers.stop() }
        let directory = try TemporaryDirectory()
        let track = directory.file("ahead.nmea")
        let shift = 3600
        try await SyntheticTrack.write(
            arguments: ["fix", "52.52", "13.405", "--now", "--shift", String(shift), "--seconds", "3600"], to: track)
        let started = Int(Date().timeIntervalSince1970)
        let world = try await AirlocWorld(
            log: track, keeping: directory,
            config: Self.traccarConfig(servers))
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        defer { logger.stop() }
        try await Poll.until("rows uploaded after the re-stamp") {
            (try Uploads.received(servers)["traccar"] ?? []).count >= 5
        }
        logger.signal(SIGTERM)
        let stopped = try await logger.wait()
        #expect(stopped.status == 0, "\(stopped)")
        #expect(stopped.stderr.contains("system clock is off"), "\(stopped.stderr)")

        let logged = try await Uploads.exported(world, kind: "track")
        let sent = try Uploads.received(servers)["traccar"] ?? []
        let loggedTimes = logged.map { Uploads.epoch($0["time"] as? String ?? "") }
        let sentTimes = sent.map { Int(($0["time"] as? Double ?? 0).rounded(.down)) }
        // Oldest first: the i-th position sent is the i-th row, at the time the logbook keeps.
        #expect(
            !sentTimes.isEmpty && sentTimes == Array(loggedTimes.prefix(sentTimes.count)),
            "\(sentTimes) vs \(loggedTimes)")
        #expect(
            sentTimes.allSatisfy { $0 >= started + shift - 60 },
            "no position was sent with the clock's time, an hour behind: \(sentTimes.prefix(5)), started \(started)")
        #expect(logged.prefix(sent.count).allSatisfy { $0["time_source"] as? String == "gps" }, "\(logged.prefix(3))")
    }
}
