import Foundation
import TestSupport
import Testing

/// A device's rows that never reach the collector while its hellos do (here an ACL that
/// drops the history for the collector's account; a consumer in the share group does the
/// same to some of them) are said by `/metrics` and `collect status`, on real mosquitto
/// with the documented configuration, real PostgreSQL and the built binary; once the rows
/// can arrive, every row the device marks stored is in PostgreSQL.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "mosquitto_sub", "mosquitto_passwd", "psql", "curl")))
struct CollectorBehindEndToEndTests {
    typealias ACL = FleetACLEndToEndTests
    typealias Fleet = FleetEndToEndTests

    static let historyLine = "topic read airloc/+/history\ntopic read airloc/+/status"

    @Test func rowsThatNeverArriveAreSaidAndNoneIsLostOnceTheyCan() async throws {
        let broker = try await ACL.broker { acl in
            #expect(acl.contains(Self.historyLine), "the collector's history line")
            return acl.replacingOccurrences(of: Self.historyLine, with: "topic read airloc/+/status")
        }
        let database = try await PostgresServer.start()
        let secrets = try ACL.secrets()
        defer { secrets.remove() }
        let collector = try ACL.collector(broker, database, secrets: secrets, extra: "metrics = 127.0.0.1:0\n")
        defer { collector.state.remove() }
        let running = try collector.start()
        defer { running.stop() }
        try await Poll.until("the collector's metrics") {
            running.errors.contains("metrics on http://127.0.0.1:") || !running.isRunning
        }
        let said = try #require(
            running.errors.split(separator: "\n").first { $0.contains("metrics on http://127.0.0.1:") },
            "\(running.errors)")
        let metrics = String(said[said.range(of: "http://")!.lowerBound...])
        let behind: @Sendable () async throws -> Int? = {
            let text = try await CollectorMetricsEndToEndTests.get(metrics)
            return text.split(separator: "\n").first { $0.hasPrefix("airloc_collector_devices_behind ") }
                .flatMap { Double($0.split(separator: " ")[1]) }.map { Int($0) }
        }
        #expect(try await behind() == 0, "nothing behind before any device")

        let world = try await AirlocWorld(config: ACL.pi4(broker, secrets: secrets))
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        defer { logger.stop() }
        // The hellos arrive, the rows do not: the collector says which device is behind.
        try await Poll.until("the collector says pi-4 is behind") { try await behind() == 1 }
        let status = try await collector.status()
        let service = try #require(status["collector"] as? [String: Any], "\(status)")
        #expect((service["behind"] as? [String: Any])?["pi-4"] != nil, "\(service)")
        let text = try await collector.run(["collect", "status"])
        #expect(text.stdout.contains("pi-4's rows are not arriving"), "\(text)")
        #expect(try await Collector.storedCount(database) == 0, "the ACL dropped every row")

        // The ACL mended and reloaded: the rows arrive, nothing is behind, nothing lost.
        try String(contentsOf: PackagePaths.file("docs/examples/mosquitto.acl"), encoding: .utf8)
            .write(to: broker.directory.file("airloc.acl"), atomically: true, encoding: .utf8)
        broker.reload()
        try await Poll.until("the rows stored, nothing behind") {
            guard try await Collector.storedCount(database) >= 3 else { return false }
            return try await behind() == 0
        }
        logger.signal(SIGTERM)
        #expect(try await logger.wait().status == 0)
        let device = try await Fleet.status(world)
        let rows = ["track_rows", "air_rows", "sensor_rows"].reduce(0) { $0 + (device[$1] as? Int ?? 0) }
        let marked = rows - (device["unstored"] as? Int ?? rows)
        #expect(marked >= 3, "\(device)")
        let stored = try await Collector.stored(database, "pi-4")
        #expect(
            stored.count >= marked, "every row the device marks stored is in PostgreSQL: \(stored.count) of \(marked)")
        #expect(stored.values.allSatisfy { $0.count == 1 }, "each once")
        running.signal(SIGTERM)
        _ = try await running.wait()
        try await broker.stop()
        try await database.stop()
    }
}

private typealias Collector = CollectorEndToEndTests
