import Foundation
import TestSupport
import Testing

/// A fleet page (`[serve] source = collector`) started before its database is there — a
/// boot where `serve` wins the race against PostgreSQL and `airloc collect` — waits for it:
/// it answers 503 with the reason meanwhile, and the page once the collector has made its
/// schema, without being restarted.
@Suite(.enabled(if: ExternalTool.available("mosquitto_sub", "psql", "curl")))
struct FleetPageWaitsEndToEndTests {
    typealias Stored = CollectorEndToEndTests

    @Test func aFleetPageStartedBeforeItsDatabaseServesItOnceItIsReady() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        try await database.stop()
        let collector = try Stored.CollectorProcess(broker: broker, database: database)
        defer { collector.state.remove() }
        let config = collector.state.file("config/airloc")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "[serve]\nsource = collector\nlisten = 127.0.0.1:0\n".write(
            to: config.appendingPathComponent("airloc.conf"), atomically: true, encoding: .utf8)
        let server = try ChildProcess(AirlocBinary.path, ["serve"], environment: collector.environment)
        defer { server.stop() }
        let port = try await ServeEndToEndTests.port(of: server)

        // PostgreSQL not up: the page says so, and serve keeps running.
        let down = try await FleetPageEndToEndTests.get(port, "/api/last")
        #expect(down.status == 503 && down.body.contains("waits for the collector's database"), "\(down)")
        #expect(try await FleetPageEndToEndTests.get(port, "/page.css").status == 200, "its style needs no database")
        try await Poll.until("the wait said") { server.errors.contains("waiting for") }
        // Up, but no schema yet: still waiting, with that reason.
        try await database.start()
        try await Poll.until("the reason moving to the missing schema") {
            try await FleetPageEndToEndTests.get(port, "/api/last").body.contains("no collector schema yet")
        }
        #expect(server.isRunning, "\(server.errors)")
        // The collector starts and makes the schema: the page answers without a restart.
        let running = try collector.start()
        defer { running.stop() }
        try await Poll.until("the page served", deadline: .seconds(30)) {
            try await FleetPageEndToEndTests.get(port, "/api/last").status == 200
        }
        #expect(try await FleetPageEndToEndTests.get(port, "/").status == 200)
        #expect(server.errors.contains("is ready (collector schema"), "\(server.errors)")
        #expect(try await server.terminate().status == 0)
        running.signal(SIGTERM)
        #expect(try await running.wait().status == 0)
        try await broker.stop()
        try await database.stop()
    }
}
