import Foundation
import TestSupport
import Testing

/// GPS time that cannot be right is not believed: a real receiver's capture (gpsd's
/// BU-353-S4 log, recorded 2014-12-31, for which gpsd itself reports 2034-08-16) replayed
/// through gpsfake into a real gpsd, logged by the built binary.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3")))
struct LogGPSTimeEndToEndTests {
    @Test func aReceiverYearsAheadDoesNotStampTheTrack() async throws {
        guard let log = PackagePaths.corpus?.appendingPathComponent("nmea/bu353s4.log") else {
            #expect(!ExternalTool.isCI, "../shared/corpus/nmea is missing, and CI must replay it")
            print("note: ../shared/corpus not found; the BU-353-S4 capture is replayed only where it exists")
            return
        }
        let world = try await AirlocWorld(log: log, config: "[log]\ntrack-interval = 1\n")
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        _ = try await LogEndToEndTests.waitForStatus(world, "track points and an air reading") {
            ($0["track_rows"] as? Int ?? 0) >= 5 && ($0["air_rows"] as? Int ?? 0) >= 1
        }
        // `now` shows the same fix: it says the receiver's time is not believed, as the logger does.
        let now = try await world.run(["now", "--json"])
        let report = LogEndToEndTests.json(now.stdout) ?? [:]
        let warnings = report["warnings"] as? [String] ?? []
        #expect(
            warnings.contains { $0.contains("years ahead of this device's clock") && $0.contains("rollover") },
            "\(now)")
        let stopped = try await logger.terminate()
        #expect(stopped.status == 0, "\(stopped)")
        #expect(
            stopped.stderr.occurrences(of: "years ahead of this device's clock") == 1,
            "said once, naming the cause:\n\(stopped.stderr)")
        #expect(stopped.stderr.contains("week-number rollover"), "\(stopped.stderr)")
        #expect(!stopped.stderr.contains("system clock is off"), "\(stopped.stderr)")
        // Every row is found where a user looks for today's: track and air alike.
        let status = try await LogEndToEndTests.waitForStatus(world, "the final status") { _ in true }
        let export = try await world.run(["log", "export", "--format", "ndjson", "--since", "24h"])
        let rows = export.stdout.split(separator: "\n").compactMap { LogEndToEndTests.json(String($0)) }
        let track = rows.filter { $0["kind"] as? String == "track" }
        #expect(track.count == status["track_rows"] as? Int, "every track row is within the last day: \(status)")
        #expect(track.allSatisfy { $0["time_source"] as? String == "system" }, "\(track.prefix(2))")
        #expect(rows.contains { $0["kind"] as? String == "air" }, "\(export.stdout.prefix(400))")
    }
}
