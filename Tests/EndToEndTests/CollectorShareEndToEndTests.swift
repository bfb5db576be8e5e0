import Foundation
import TestSupport
import Testing

/// Three `airloc collect` processes of one `[collect] share` group between three real
/// loggers and one real PostgreSQL, through a real mosquitto's shared subscription: one
/// member SIGKILLed mid-run, another stopped and started again.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "mosquitto_sub", "psql")))
struct CollectorShareEndToEndTests {
    typealias Collecting = CollectorEndToEndTests
    typealias Fleet = FleetEndToEndTests

    /// Every row of every logbook is stored exactly once, every device's `unsent` and
    /// `unstored` reach 0, at least two members stored rows, and no device ever heard an
    /// acknowledgement that went backwards (read by a subscriber of its own on every
    /// `<prefix>/ack`, and by the loggers, which would have said that the store forgot rows).
    @Test func threeCollectorsSplitTheRowsAndNoAcknowledgementGoesBackwards() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        let acks = try await MQTTSubscriber.start(broker: broker, id: "ack-watch", topics: ["airloc/+/ack"])
        let members = try (1...3).map { index in
            try Collecting.CollectorProcess(
                broker: broker, database: database,
                config: "[collect]\nbatch = 5\nshare = fleet\nclient-id = member-\(index)\n")
        }
        defer { for member in members { member.state.remove() } }
        var running = try members.map { try $0.start() }
        // The first logger's hour is revised: whichever member stores the revision, the
        // device's lease holder must make it known to the device.
        let (worlds, loggers) = try await Collecting.startLoggers(broker)
        defer { for world in worlds { world.stop() } }
        func storedGrows(_ what: String) async throws {
            let before = try await Collecting.storedCount(database)
            do {
                try await Poll.until(what) { try await Collecting.storedCount(database) >= before + 6 }
            } catch {
                let errors = running.map(\.errors).joined(separator: "\n---\n")
                throw FixtureError("\(error)\n--- collectors\n\(errors)\n--- logger\n\(loggers[0].errors)")
            }
        }
        try await storedGrows("rows stored by the group")
        running[1].signal(SIGKILL)
        _ = try await running[1].wait()
        try await storedGrows("rows stored after a member was killed")
        running[2].signal(SIGTERM)
        #expect(try await running[2].wait().status == 0)
        running[2] = try members[2].start()
        try await storedGrows("rows stored after a member came back")
        // `collect status` names each device's lease holder: a member of the group.
        try await Poll.until("every device's lease holder in collect status") {
            let devices = (try await members[0].status())["devices"] as? [[String: Any]] ?? []
            return devices.count == 3
                && devices.allSatisfy { ["member-1", "member-3"].contains($0["acknowledged_by"] as? String ?? "") }
        }
        // No more fixes: the loggers stop writing track rows, and the group catches up.
        try await Collecting.expectEveryRowStoredOnce(worlds, loggers, database)
        // The hourly roll-up counts each air row once, whichever members stored it and its
        // revision (their transactions on one device wait for each other).
        let rollup = try await database.query(
            "SELECT (SELECT sum(rows) FROM air_hourly) = (SELECT count(*) FROM air) + (SELECT count(*) FROM sensor)")
        #expect(rollup == "t\n", "air_hourly's rows: \(rollup)")
        // Per device and kind, each acknowledgement's `through` is at least the one before.
        var last: [String: Int] = [:]
        var backwards: [String] = []
        for message in acks.messages {
            guard let ack = Fleet.json(message.payload), let through = ack["through"] as? [String: Int] else {
                continue
            }
            for (kind, id) in through {
                let key = "\(message.topic) \(kind)"
                if id < last[key, default: 0] { backwards.append("\(key): \(last[key, default: 0]) then \(id)") }
                last[key] = max(last[key, default: 0], id)
            }
        }
        #expect(backwards.isEmpty, "\(backwards)")
        #expect(Set(last.keys.map { $0.split(separator: " ")[0] }).count == 3, "every device was acknowledged")
        let stored = try await [members[0], members[2]].asyncMap { member in
            ((try await member.status())["collector"] as? [String: Any])?["stored"] as? Int ?? 0
        }
        #expect(stored.allSatisfy { $0 > 0 }, "both running members stored rows: \(stored)")
        // Each row went to one member, not to all: the first member stored fewer than there are.
        let total = try await ["track", "air", "sensor"].asyncMap { table in
            Int(
                try await database.query("SELECT count(*) FROM \(table)").trimmingCharacters(
                    in: .whitespacesAndNewlines))
                ?? 0
        }.reduce(0, +)
        #expect(stored[0] < total, "the first member stored \(stored[0]) of \(total) rows")
        for index in [0, 2] {
            running[index].signal(SIGTERM)
            let stopped = try await running[index].wait()
            #expect(stopped.status == 0, "\(stopped)")
        }
        try await acks.stop()
        try await broker.stop()
        try await database.stop()
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(try await transform(element)) }
        return mapped
    }
}
