import Foundation
import TestSupport
import Testing

/// A database that takes connections but refuses to write, for a minute, under a running
/// logger: `/metrics` and `collect status` say so with the reason, the collector stops and
/// starts cleanly meanwhile, and once writes work again every row is stored once and the
/// error is gone.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "psql")))
struct CollectorStoreFaultEndToEndTests {
    typealias Collector = CollectorEndToEndTests.CollectorProcess
    typealias Hostile = CollectorHostileEndToEndTests

    @Test func aDatabaseThatRefusesWritesIsSaidAndNothingIsLost() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        let port = try GPSFake.freePort()
        let collector = try Collector(
            broker: broker, database: database, config: "[collect]\nmetrics = 127.0.0.1:\(port)\n")
        defer { collector.state.remove() }
        var running = try collector.start()
        defer { running.stop() }
        let world = try await AirlocWorld(config: CollectorEndToEndTests.config(broker))
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        defer { logger.stop() }
        try await Poll.until("rows stored") { try await CollectorEndToEndTests.storedCount(database) >= 3 }

        // Read only from now, for a minute: connections are taken, writes refused (25006).
        let refusing = Date()
        try await database.configure("default_transaction_read_only", "on")
        try await Poll.until("/metrics saying rows cannot be stored", deadline: .seconds(30)) {
            let metrics = try await Hostile.metrics(port)
            return metrics["airloc_collector_database_up"] == 0
                && metrics["airloc_collector_database_fault{kind=\"read_only\"}"] == 1
        }
        try await Poll.until("collect status saying why", deadline: .seconds(30)) {
            let status = try await collector.run(["collect", "status"]).stdout
            return status.contains("cannot store rows:") && status.contains("read-only")
        }
        let waiting = try await Hostile.metrics(port)
        #expect(waiting["airloc_collector_rows_waiting"] ?? 0 >= 1, "\(waiting)")
        // Stopped while it cannot store: it ends on SIGTERM as ever, and starts again into the fault.
        running.signal(SIGTERM)
        #expect(try await running.wait(timeout: 60).status == 0, "\(running.errors)")
        running = try collector.start()
        let restarted = running
        try await Poll.until("the fault said by the new process", deadline: .seconds(30)) {
            restarted.errors.contains("cannot store rows")
        }
        try await Poll.until("a minute of refused writes") { Date().timeIntervalSince(refusing) >= 60 }
        try await database.configure("default_transaction_read_only", "off")

        try await Poll.until("/metrics saying rows are stored again") {
            let metrics = try await Hostile.metrics(port)
            return metrics["airloc_collector_database_up"] == 1
                && !metrics.keys.contains { $0.hasPrefix("airloc_collector_database_fault") }
        }
        try await CollectorEndToEndTests.expectEveryRowStoredOnce([world], [logger], database, revisedHour: false)
        // The status file follows within its 2 s (docs/collector.md), and keeps no old reason.
        try await Poll.until("collect status saying the database is connected again") {
            let after = try await collector.run(["collect", "status", "--json"])
            let document = FleetEndToEndTests.json(after.stdout)?["collector"] as? [String: Any]
            return document?["database"] as? String == "connected" && document?["database_error"] is NSNull
        }
        #expect(!(try await collector.run(["collect", "status"])).stdout.contains("cannot store rows"))
        // The fault said once when it began and once when it ended, never per retry.
        #expect(running.errors.occurrences(of: "cannot store rows") == 1, "\(running.errors)")
        #expect(running.errors.occurrences(of: "storing again after") == 1, "\(running.errors)")
        running.signal(SIGTERM)
        #expect(try await running.wait().status == 0)
        try await broker.stop()
        try await database.stop()
    }
}
