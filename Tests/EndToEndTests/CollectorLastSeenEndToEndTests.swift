import Foundation
import TestSupport
import Testing

/// `devices.last_seen` is when the device last spoke. A collector that starts again gets
/// the broker's retained status and hello of a device long stopped: that is what the device
/// last said, not the device speaking, and its `last_seen` stays where it was.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "mosquitto_sub", "psql")))
struct CollectorLastSeenEndToEndTests {
    typealias Collector = CollectorEndToEndTests

    @Test func aStoppedDevicesLastSeenStaysAcrossACollectorRestart() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        let collector = try Collector.CollectorProcess(broker: broker, database: database)
        defer { collector.state.remove() }
        var running = try collector.start()
        defer { running.stop() }
        let world = try await AirlocWorld(config: Collector.config(broker))
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        defer { logger.stop() }
        try await Poll.until("rows stored", deadline: .seconds(120)) { try await Collector.storedCount(database) >= 3 }
        let device = try Collector.deviceID(world)
        logger.signal(SIGTERM)
        #expect(try await logger.wait().status == 0)
        @Sendable func row() async throws -> (version: String, lastSeen: String, status: String) {
            let fields = try await database.query(
                "SELECT xmin::text, last_seen::text, status FROM devices WHERE device_id = '\(device)'"
            ).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map(String.init)
            return fields.count == 3 ? (fields[0], fields[1], fields[2]) : ("", "", "")
        }
        // The logger's farewell ("offline", said live) is the last thing it says.
        try await Poll.until("the device's farewell stored") { try await row().status == "offline" }
        let stopped = try await row()
        running.signal(SIGTERM)
        #expect(try await running.wait().status == 0)

        running = try collector.start()
        // The restarted collector writes the retained news it was handed (the row's
        // version moves), and leaves last_seen as the device left it.
        try await Poll.until("the retained status and hello written again", deadline: .seconds(120)) {
            try await row().version != stopped.version
        }
        let after = try await row()
        #expect(after.lastSeen == stopped.lastSeen, "last_seen moved from \(stopped.lastSeen) to \(after.lastSeen)")
        #expect(after.status == "offline")
        running.signal(SIGTERM)
        #expect(try await running.wait().status == 0)
        try await broker.stop()
        try await database.stop()
    }
}
