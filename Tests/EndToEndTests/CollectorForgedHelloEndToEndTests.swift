import Foundation
import TestSupport
import Testing

/// A hello forged by any account on an open broker: the device's own retained hello with
/// its real incarnation (it is in every history line) and `first` = 10^15. The collector
/// once acknowledged every id below that, so the device marked rows stored that were in no
/// table. Now the claim moves nothing the rows do not bear out: no acknowledgement passes
/// the highest id the device logged, and every row it logged is in PostgreSQL.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "mosquitto_sub", "mosquitto_pub", "psql")))
struct CollectorForgedHelloEndToEndTests {
    typealias Collector = CollectorEndToEndTests

    /// The retained message on `topic`, as JSON.
    static func retained(_ broker: MosquittoBroker, _ topic: String) async throws -> [String: Any] {
        let sub = try #require(ExternalTool.path(of: "mosquitto_sub"))
        let result = try await ChildProcess.run(
            sub, ["-h", "127.0.0.1", "-p", "\(broker.port)", "-C", "1", "-W", "30", "-t", topic],
            environment: ProcessInfo.processInfo.environment)
        let line = result.stdout.split(separator: "\n").first.map(String.init) ?? ""
        return try #require(
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(topic): \(result)")
    }

    @Test func aForgedHelloAcknowledgesNothingThatWasNotStored() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        let collector = try Collector.CollectorProcess(broker: broker, database: database)
        defer { collector.state.remove() }
        let running = try collector.start()
        defer { running.stop() }
        let world = try await AirlocWorld(config: Collector.config(broker))
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        defer { logger.stop() }
        try await Poll.until("rows stored") { try await Collector.storedCount(database) >= 3 }
        let device = try Collector.deviceID(world)

        // The forger takes the device's retained hello and claims every id up to 10^15.
        var hello = try await Self.retained(broker, "airloc/\(device)/hello")
        #expect(hello["incarnation"] is String, "the real incarnation is there to copy: \(hello)")
        hello["first"] = ["track": 999_999_999_999_999, "air": 999_999_999_999_999, "sensor": 999_999_999_999_999]
        let forged = String(decoding: try JSONSerialization.data(withJSONObject: hello), as: UTF8.self)
        let pub = try #require(ExternalTool.path(of: "mosquitto_pub"))
        let published = try await ChildProcess.run(
            pub,
            ["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-r", "-t", "airloc/\(device)/hello", "-m", forged],
            environment: ProcessInfo.processInfo.environment)
        #expect(published.status == 0, "\(published)")
        // Rows logged after the forgery are stored as before: the collector read it by then.
        let before = try await Collector.storedCount(database)
        try await Poll.until("rows stored after the forged hello") {
            try await Collector.storedCount(database) >= before + 3
        }

        let ack = try await Self.retained(broker, "airloc/\(device)/ack")
        let through = ack["through"] as? [String: Any] ?? [:]
        let highest = try await Collector.exported(world).keys.compactMap { Int64($0.dropFirst()) }.max() ?? 0
        for (kind, value) in through {
            let acknowledged = (value as? NSNumber)?.int64Value ?? 0
            #expect(
                acknowledged <= highest, "\(kind) acknowledged through \(acknowledged); the device logged \(highest)")
        }

        // The logger stops with its rows acknowledged; every row it logged is stored.
        logger.signal(SIGTERM)
        #expect(try await logger.wait().status == 0)
        let logged = try await Collector.exported(world)
        try await Poll.until("every logged row stored", deadline: .seconds(120)) {
            let stored = try await Collector.stored(database, device)
            return logged.keys.allSatisfy { stored[$0] != nil }
        }
        running.signal(SIGTERM)
        _ = try await running.wait()
    }
}
