import Foundation
import TestSupport
import Testing

/// One logger per logbook, and nothing beside it that can take the logbook from under it:
/// a second `log run` is refused while the first goes on, and a reader, `log prune` or
/// `doctor` beside a logger with uploads (which opens the logbook twice in its process)
/// leaves the write-ahead log in place and every row visible.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3")))
struct OneLoggerEndToEndTests {
    typealias Fleet = FleetEndToEndTests

    static func trackRows(_ world: AirlocWorld) async throws -> Int {
        try await Fleet.status(world)["track_rows"] as? Int ?? 0
    }

    /// The logbook's files the process still holds although they were deleted.
    static func deletedHandles(_ pid: pid_t) -> [String] {
        let directory = "/proc/\(pid)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return entries.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\($0)") }
            .filter { $0.contains("logbook.sqlite") && $0.hasSuffix("(deleted)") }
    }

    /// The service restarted before the old logger stopped, or a foreground run beside it:
    /// the second exits at once with 75, naming the first, which goes on writing; `log
    /// status` names the running one; a killed logger's lock does not block the next.
    @Test func aSecondLoggerIsRefusedAndTheFirstGoesOn() async throws {
        let world = try await AirlocWorld(config: "[log]\ntrack-interval = 1\n")
        defer { world.stop() }
        let first = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        defer { first.stop() }
        let pid = Int(first.pid)
        try await Fleet.waitForStatus(world, "the first logger writing", logger: first) {
            ($0["track_rows"] as? Int ?? 0) >= 2 && $0["logger_pid"] as? Int == pid
        }
        let second = try await world.run(["log", "run"], timeout: 60)
        #expect(second.status == 75, "\(second)")
        #expect(second.stderr.contains("another logger (process \(pid))"), "\(second.stderr)")
        let atRefusal = try await Self.trackRows(world)
        try await Poll.until("the first logger still writing") { try await Self.trackRows(world) >= atRefusal + 3 }
        #expect(first.isRunning)
        #expect(Self.deletedHandles(first.pid).isEmpty, "\(Self.deletedHandles(first.pid))")

        first.signal(SIGKILL)
        _ = try await first.wait()
        let killedAt = try await Self.trackRows(world)
        let next = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        defer { next.stop() }
        try await Fleet.waitForStatus(world, "the next logger after a kill", logger: next) {
            ($0["track_rows"] as? Int ?? 0) > killedAt && $0["logger_pid"] as? Int == Int(next.pid)
        }
        next.signal(SIGTERM)
        #expect(try await next.wait().status == 0)
        let after = try await Fleet.status(world)
        #expect(after["logger_pid"] is NSNull, "no logger runs: \(after)")
    }

    /// A station builder's logger with an upload, and beside it what an operator runs: `log
    /// status`, `log export`, `doctor`, and `log prune` deleting nothing. The logger's
    /// write-ahead log stays (no handle of it "(deleted)"), the readers see its new rows,
    /// and a SIGKILL afterwards loses none of the rows they saw.
    @Test func readersPruneAndDoctorBesideALoggerWithUploadsLoseNothing() async throws {
        let servers = try await HTTPDouble.startUploadServers(["--traccar-id", "pi7"])
        defer { servers.stop() }
        let world = try await AirlocWorld(
            config: UploadTimeEndToEndTests.traccarConfig(servers))
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        defer { logger.stop() }
        try await Fleet.waitForStatus(world, "rows logged and uploaded", logger: logger) {
            ($0["track_rows"] as? Int ?? 0) >= 3
                && (($0["uploads"] as? [[String: Any]])?.first?["sent"] as? Int ?? 0) >= 1
        }
        let pruned = try await world.run(["log", "prune", "--before", "2000-01-01"])
        #expect(pruned.status == 0, "\(pruned)")
        let doctor = try await world.run(["doctor", "--json"])
        #expect(!doctor.stdout.isEmpty, "\(doctor)")
        let exported = try await world.run(["log", "export", "--format", "ndjson"])
        #expect(exported.status == 0, "\(exported)")

        let afterReaders = try await Self.trackRows(world)
        try await Poll.until("new rows visible after prune, doctor and export") {
            try await Self.trackRows(world) >= afterReaders + 3
        }
        let wal = world.home.file("state/airloc/logbook.sqlite-wal").path
        #expect(FileManager.default.fileExists(atPath: wal), "the logger's write-ahead log is still there")
        #expect(Self.deletedHandles(logger.pid).isEmpty, "\(Self.deletedHandles(logger.pid))")
        let seen = try await Self.trackRows(world)
        logger.signal(SIGKILL)
        _ = try await logger.wait()
        #expect(try await Self.trackRows(world) >= seen, "a row a reader saw is never lost")
    }
}
