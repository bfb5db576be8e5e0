import Foundation
import TestSupport
import Testing

/// A row's identity is unique for the device's lifetime, across what an operator does to
/// the logbook: `log prune` of every row, then the logbook deleted and made again. After
/// each, the new rows reach PostgreSQL beside the old ones, and none is lost or replaced.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "mosquitto_sub", "psql")))
struct CollectorIdentityEndToEndTests {
    typealias Collector = CollectorEndToEndTests
    typealias Fleet = FleetEndToEndTests

    /// Every stored track row as "incarnation id time", sorted.
    static func storedTrack(_ database: PostgresServer) async throws -> [String] {
        try await database.query(
            """
            SELECT incarnation || ' ' || id || ' ' || to_char(time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS')
            FROM track ORDER BY 1
            """
        ).split(separator: "\n").map(String.init)
    }

    /// Runs a logger until the stored track rows satisfy `done`. (Its last rows may be
    /// unstored at the stop: they wait in the logbook, and are not compared; rows of an
    /// earlier run still queued at the broker may be stored meanwhile.)
    static func logUntilStored(
        _ world: AirlocWorld, _ database: PostgresServer, _ what: String,
        done: @escaping @Sendable ([String]) -> Bool
    ) async throws {
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        defer { logger.stop() }
        do {
            try await Poll.until(what) { done(try await storedTrack(database)) }
        } catch {
            throw FixtureError("\(error): \(try await Fleet.status(world))\n--- logger\n\(logger.errors.prefix(2500))")
        }
        logger.signal(SIGTERM)
        #expect(try await logger.wait().status == 0)
    }

    static func incarnation(_ line: String) -> String {
        String(line.split(separator: " ", omittingEmptySubsequences: false)[0])
    }

    @Test func prunedOrMadeAgainTheLogbooksNewRowsAreStoredBesideTheOld() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        let collector = try Collector.CollectorProcess(broker: broker, database: database)
        defer { collector.state.remove() }
        let running = try collector.start()
        defer { running.stop() }
        let world = try await AirlocWorld(config: Collector.config(broker))
        defer { world.stop() }

        try await Self.logUntilStored(world, database, "rows stored") { $0.count >= 4 }
        let first = try await Self.storedTrack(database)

        // Every row pruned: the next ids follow the old ones, and the old rows stay stored.
        let pruned = try await world.run(["log", "prune", "--before", "2030-01-01", "--force"])
        #expect(pruned.status == 0, "\(pruned)")
        #expect(try await Fleet.status(world)["track_rows"] as? Int == 0)
        let stored = first.count
        try await Self.logUntilStored(world, database, "rows stored after the prune") { $0.count >= stored + 4 }
        let second = try await Self.storedTrack(database)
        #expect(Set(first).isSubset(of: Set(second)), "no stored row replaced: \(first) vs \(second)")
        let logged = try await Collector.exported(world)
        let firstIDs = Set(first.map { String($0.split(separator: " ", omittingEmptySubsequences: false)[1]) })
        #expect(logged.keys.allSatisfy { !firstIDs.contains($0) }, "a pruned id was given again")

        // The logbook deleted: a new file, a new incarnation, ids from t1 again.
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(at: world.home.file("state/airloc/logbook.sqlite\(suffix)"))
        }
        let earlier = Set(second.map(Self.incarnation))
        try await Self.logUntilStored(world, database, "the new logbook's rows stored") { rows in
            rows.filter { !earlier.contains(Self.incarnation($0)) }.count >= 4
        }
        // The status before the rows: rows still in flight at the stop may be stored
        // between the two reads, and `through` must not count rows the snapshot lacks.
        let device = try Collector.deviceID(world)
        let status = try await collector.status()
        let known = (status["devices"] as? [[String: Any]] ?? []).first { $0["device_id"] as? String == device }
        let through = (known?["stored_through"] as? [String: Any])?["track"] as? Int ?? 0
        let third = try await Self.storedTrack(database)
        let old = Set(second)
        #expect(old.isSubset(of: Set(third)), "every row stored before is still there as it was")
        let again = try await Collector.exported(world)
        let incarnations = Set(third.map(Self.incarnation)).subtracting(earlier)
        #expect(incarnations.count == 1, "the new logbook's rows are of a new incarnation: \(incarnations)")
        let newRows = third.filter { incarnations.contains(Self.incarnation($0)) }
        let newIDs = Set(newRows.map { String($0.split(separator: " ")[1]) })
        #expect(newRows.count >= 4 && newIDs.count == newRows.count, "each stored once: \(newRows)")
        #expect(newIDs.isSubset(of: Set(again.keys)), "the new rows are the new logbook's: \(newIDs.sorted())")
        #expect(newIDs.contains("t1"), "the new logbook starts at t1 again, and its t1 is stored")
        #expect(
            through >= 1 && through <= newRows.count,
            "collect status speaks of the current logbook: \(String(describing: known))")
        running.signal(SIGTERM)
        _ = try await running.wait()
        try await broker.stop()
        try await database.stop()
    }
}
