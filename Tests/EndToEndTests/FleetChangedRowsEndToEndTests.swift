import Foundation
import TestSupport
import Testing

/// Rows whose content changes after they were published reach every subscriber again,
/// during the run: a real gpsd, a real mosquitto, the air double failing at first.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "mosquitto_sub")))
struct FleetChangedRowsEndToEndTests {
    typealias Fleet = FleetEndToEndTests

    /// Every row of the logbook as its NDJSON export line, by id.
    static func loggedRows(_ world: AirlocWorld) async throws -> [String: String] {
        let export = try await world.run(["log", "export", "--format", "ndjson"])
        var rows: [String: String] = [:]
        for line in export.stdout.split(separator: "\n") {
            guard let row = Fleet.json(String(line)), let id = row["id"] as? String else { continue }
            rows[id] = canonical(row)
        }
        return rows
    }

    /// A row's JSON with its keys sorted: two lines with the same content compare equal.
    static func canonical(_ row: [String: Any]) -> String {
        let data = try? JSONSerialization.data(withJSONObject: row, options: [.sortedKeys])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// The last history message for each id, as a subscriber that keeps the latest has it.
    static func receivedRows(_ subscriber: MQTTSubscriber) -> [String: String] {
        var rows: [String: String] = [:]
        for message in subscriber.messages where message.topic == "airloc/test-device/history" {
            guard let row = Fleet.json(message.payload), let id = row["id"] as? String else { continue }
            rows[id] = canonical(row)
        }
        return rows
    }

    /// The air service answers 500 until the pending hour was published: the hour is
    /// logged pending and published so. When the next retry succeeds the row becomes live;
    /// it is published again in the same run, `state` carries its AQI, and after a clean
    /// stop nothing is left unsent and every subscriber's last word for each id is the
    /// logbook's row.
    @Test func aPendingHourSettledLaterIsPublishedAgainWithItsContent() async throws {
        let broker = try await MosquittoBroker.start()
        let subscriber = try await MQTTSubscriber.start(broker: broker, id: "changes", topics: ["airloc/#"])
        let world = try await AirlocWorld(
            faults: [#"{"path": "/v1/air-quality", "status": 500}"#],
            config: Fleet.config(broker, extra: "position = exact\n"))
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        // The service fails until the pending version has been received: on a loaded
        // machine the broker may be reached only after a retry that succeeds, and the hour
        // would then go out live only. Received at some point, not as the latest message.
        try await Poll.until("the pending row at the subscriber") {
            subscriber.messages.contains {
                $0.topic == "airloc/test-device/history" && $0.payload.contains(#""source":"pending""#)
            }
        }
        try world.double.clearFaults()
        try await Fleet.waitForStatus(world, "the hour settled by a live answer", logger: logger) {
            ($0["pending"] as? Int) == 0 && ($0["air_rows"] as? Int ?? 0) >= 1
        }
        try await Poll.until("the settled row at the subscriber during the run") {
            let air = Self.receivedRows(subscriber).filter { $0.key.hasPrefix("a") }
            return !air.isEmpty && air.values.allSatisfy { !$0.contains(#""source":"pending""#) }
        }
        try await Poll.until("state with the AQI") {
            subscriber.messages.last { $0.topic == "airloc/test-device/state" }.flatMap { Fleet.json($0.payload) }?[
                "us_aqi"] as? Int == 41
        }
        logger.signal(SIGTERM)
        let stopped = try await logger.wait()
        #expect(stopped.status == 0, "\(stopped)")
        let status = try await Fleet.status(world)
        #expect(status["unsent"] as? Int == 0, "a clean stop publishes what was written: \(status)")
        // `position = exact`: what leaves the device is the row itself, so content compares.
        let logged = try await Self.loggedRows(world)
        do {
            try await Poll.until("every row, as logged, at the subscriber") {
                let received = Self.receivedRows(subscriber)
                return logged.allSatisfy { received[$0.key] == $0.value }
            }
        } catch {
            let received = Self.receivedRows(subscriber)
            let differing = logged.filter { received[$0.key] != $0.value }.prefix(3).map {
                "\($0.key): logged \($0.value)\n  received \(received[$0.key] ?? "nothing")"
            }
            Issue.record("rows that differ at the subscriber:\n\(differing.joined(separator: "\n"))")
        }
        let state = try #require(
            subscriber.messages.last { $0.topic == "airloc/test-device/state" }.flatMap { Fleet.json($0.payload) })
        #expect(state["category_name"] as? String == "Good")
        try await subscriber.stop()
        try await broker.stop()
    }

    /// The broker restarts having lost its retained messages (no persistence file): Home
    /// Assistant, subscribing afresh, still finds the state and the position, sent again
    /// by the logger when it reconnects.
    @Test func retainedStateIsSentAgainToABrokerThatLostIt() async throws {
        let broker = try await MosquittoBroker.start()
        let world = try await AirlocWorld(config: Fleet.config(broker))
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        try await Fleet.waitForStatus(world, "an air reading published", logger: logger) {
            ($0["air_rows"] as? Int ?? 0) >= 1 && ($0["unsent"] as? Int) == 0
        }
        try await broker.stop()
        for file in try FileManager.default.contentsOfDirectory(atPath: broker.directory.url.path)
        where file.hasSuffix(".db") {
            try FileManager.default.removeItem(at: broker.directory.file(file))
        }
        try await broker.start()
        let homeAssistant = try await MQTTSubscriber.start(
            broker: broker, id: "home-assistant-after-loss", topics: ["airloc/test-device/+"])
        try await Poll.until("the state and position retained again") {
            let topics = Set(homeAssistant.messages.map(\.topic))
            return topics.contains("airloc/test-device/state") && topics.contains("airloc/test-device/position")
        }
        let state = homeAssistant.messages.last { $0.topic == "airloc/test-device/state" }.flatMap {
            Fleet.json($0.payload)
        }
        #expect(state?["us_aqi"] as? Int == 41, "\(String(describing: state))")
        logger.signal(SIGTERM)
        #expect(try await logger.wait().status == 0)
        try await homeAssistant.stop()
        try await broker.stop()
    }
}
