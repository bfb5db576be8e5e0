import Foundation
import TestSupport
import Testing

/// A database failover as the collector lives it, for the fast test (`pg_ctl promote`) and
/// the Patroni one: a collector on a connection string naming both servers, a logger on
/// gpsfake acknowledged through it, rows streamed to the standby; then the standby's WAL
/// cut (`cut`), 8 more rows acknowledged, the primary's machine gone (`kill`), the standby
/// made primary (`promote`). Both sides of the loss are read before the promotion (once
/// promoted, the collector may store the rows again before the test looks). It waits for
/// every row of the logbook on the new primary, once, and hands what happened to `then`;
/// afterwards the logger and the collector must stop cleanly.
struct FailoverScenario {
    typealias Collector = CollectorEndToEndTests

    /// What the failover left.
    struct Outcome {
        /// The collector's environment (`collect status`) and its running process.
        let setup: Collector.CollectorProcess
        let collector: ChildProcess
        let logger: ChildProcess
        let device: String
        /// The collector's `/metrics` port.
        let metrics: Int
        /// Acknowledged track rows the new primary did not have.
        let lost: Int
        /// From the primary's death to the promotion, and from it to every row stored once.
        let promotion: Duration
        let whole: Duration
        /// When the primary's machine died (nothing can be asked again before it).
        let diedAt: Date
    }

    static func count(_ database: PostgresServer, _ sql: String) async throws -> Int {
        Int(try await database.query(sql).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    static func run(
        broker: MosquittoBroker, primary: PostgresServer, standby: PostgresServer, conninfo: String,
        cut: () async throws -> Void, kill: () async throws -> Void, promote: () async throws -> Void,
        then: (Outcome) async throws -> Void
    ) async throws {
        let port = try GPSFake.freePort()
        let collector = try Collector.CollectorProcess(
            broker: broker, database: primary, config: "[collect]\nmetrics = 127.0.0.1:\(port)\n",
            extra: ["AIRLOC_COLLECT_DATABASE": conninfo])
        defer { collector.state.remove() }
        let running = try collector.start()
        defer { running.stop() }
        let world = try await AirlocWorld(config: Collector.config(broker))
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        defer { logger.stop() }
        @Sendable func ackedTrack() async throws -> Int {
            ((try await FleetEndToEndTests.status(world)["collector_ack"] as? [String: Any])?["track"] as? Int) ?? 0
        }
        let maxTrack = "SELECT coalesce(max(n), 0) FROM track"
        // A wait that fails says what the collector and the logger said.
        func waiting(_ what: String, _ condition: @escaping @Sendable () async throws -> Bool) async throws {
            do { try await Poll.until(what, deadline: .seconds(180), condition) } catch {
                throw FixtureError(
                    "\(error)\n--- collector\n\(running.errors.suffix(3000))\n--- logger\n\(logger.errors.suffix(3000))"
                )
            }
        }
        try await waiting("rows stored on the primary and streamed to the standby") {
            try await Self.count(standby, maxTrack) >= 5
        }
        try await cut()
        let onStandby = try await Self.count(standby, maxTrack)
        try await waiting("the device told of rows the standby never received") {
            try await ackedTrack() >= onStandby + 8
        }
        try await kill()
        let died = ContinuousClock.now
        let diedAt = Date()
        let lost = try await ackedTrack() - (try await Self.count(standby, maxTrack))
        try await promote()
        let promoted = ContinuousClock.now
        let device = try Collector.deviceID(world)
        try await waiting("every row of the logbook on the new primary, once") {
            let logged = try await Collector.exported(world)
            let stored = try await Collector.stored(standby, device)
            return !logged.isEmpty && logged.allSatisfy { id, row in stored[id] == [row] }
        }
        try await then(
            Outcome(
                setup: collector, collector: running, logger: logger, device: device, metrics: port, lost: lost,
                promotion: promoted - died, whole: ContinuousClock.now - promoted, diedAt: diedAt))
        logger.signal(SIGTERM)
        #expect(try await logger.wait().status == 0)
        running.signal(SIGTERM)
        #expect(try await running.wait().status == 0)
    }
}
