import Foundation
import TestSupport
import Testing

/// The collector's database restored from a backup taken while a logger ran: the rows
/// acknowledged after the backup are gone from PostgreSQL, and the logger believes them
/// stored. The device learns that the store forgot them and sends them once: every row is
/// held again, without a replay storm, and `collect status` names the device.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "mosquitto_sub", "psql")))
struct CollectorRestoreEndToEndTests {
    typealias Collector = CollectorEndToEndTests
    typealias Fleet = FleetEndToEndTests

    static func maxTrack(_ database: PostgresServer) async throws -> Int {
        Int(
            try await database.query("SELECT coalesce(max(n), 0) FROM track").trimmingCharacters(
                in: .whitespaces.union(.newlines))) ?? 0
    }

    @Test func aBackupRestoredIsFilledAgainWithoutAStorm() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        let collector = try Collector.CollectorProcess(broker: broker, database: database)
        defer { collector.state.remove() }
        var running = try collector.start()
        defer { running.stop() }
        // The lag check's republishing (ack-timeout) is left out of it: the traffic counted
        // is the restore's alone, however slow the machine.
        let world = try await AirlocWorld(
            config: Collector.config(broker).replacingOccurrences(of: "ack-timeout = 2", with: "ack-timeout = 600"))
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        defer { logger.stop() }
        @Sendable func ackedTrack() async throws -> Int {
            ((try await Fleet.status(world)["collector_ack"] as? [String: Any])?["track"] as? Int) ?? 0
        }
        try await Poll.until("rows stored before the backup") { try await Self.maxTrack(database) >= 5 }
        let device = try Collector.deviceID(world)
        let backup = try await database.dump()
        let inBackup = try await Self.maxTrack(database)
        try await Poll.until("the device acknowledged well beyond the backup") {
            try await ackedTrack() >= inBackup + 8
        }
        running.signal(SIGTERM)
        #expect(try await running.wait().status == 0)
        try await database.restore(backup)
        let lost = try await ackedTrack() - (try await Self.maxTrack(database))
        #expect(lost >= 8, "the restore took back rows the device was told were stored")

        let watcher = try await MQTTSubscriber.start(
            broker: broker, id: "restore-watch", topics: ["airloc/\(device)/history", "airloc/\(device)/replay"])
        let loggedBefore = try await Collector.exported(world).count
        running = try collector.start()
        do {
            try await Poll.until("every row held again", deadline: .seconds(120)) {
                let logged = try await Collector.exported(world)
                let stored = try await Collector.stored(database, device)
                return logged.keys.allSatisfy { stored[$0] != nil }
            }
        } catch {
            throw FixtureError("\(error)\n--- collector\n\(running.errors)\n--- logger\n\(logger.errors.suffix(3000))")
        }
        #expect(logger.errors.contains("holds fewer rows than it acknowledged"), "\(logger.errors.suffix(2000))")
        let status = try await collector.status()
        let known = (status["devices"] as? [[String: Any]] ?? []).first { $0["device_id"] as? String == device }
        #expect(known?["rewound_at"] is String, "collect status names the device: \(status)")

        // Flat: what went out again is what was lost plus what was logged since, each about
        // once; never the whole backlog over and over.
        let loggedAfter = try await Collector.exported(world).count
        let history = watcher.messages.filter { $0.topic.hasSuffix("/history") }.count
        let replays = watcher.messages.filter { $0.topic.hasSuffix("/replay") }.count
        let expected = lost + (loggedAfter - loggedBefore) + 3
        #expect(history <= 2 * expected, "\(history) history messages for about \(expected) rows")
        #expect(replays <= 4, "\(replays) replay requests")
        try await watcher.stop()
        logger.signal(SIGTERM)
        #expect(try await logger.wait().status == 0)
        running.signal(SIGTERM)
        _ = try await running.wait()
        try await broker.stop()
        try await database.stop()
    }
}
