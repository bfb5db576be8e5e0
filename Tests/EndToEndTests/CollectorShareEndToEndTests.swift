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

    /// `count` members of the group `fleet`, `member-1`…, not started.
    static func group(_ count: Int, broker: MosquittoBroker, database: PostgresServer) throws
        -> [Collecting.CollectorProcess]
    {
        try (1...count).map { index in
            try Collecting.CollectorProcess(
                broker: broker, database: database,
                config: "[collect]\nbatch = 5\nshare = fleet\nclient-id = member-\(index)\n")
        }
    }

    /// Every row of every logbook is stored exactly once, every device's `unsent` and
    /// `unstored` reach 0, at least two members stored rows, and no device ever heard an
    /// acknowledgement that went backwards (read by a subscriber of its own on every
    /// `<prefix>/ack`, and by the loggers, which would have said that the store forgot rows).
    @Test func threeCollectorsSplitTheRowsAndNoAcknowledgementGoesBackwards() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        let acks = try await MQTTSubscriber.start(broker: broker, id: "ack-watch", topics: ["airloc/+/ack"])
        let members = try Self.group(3, broker: broker, database: database)
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
        // Back in the group once it stores rows again: it kept no session, so only rows
        // published after it subscribed reach it (the loggers go on logging until told).
        let restarted = Int(running[2].pid)
        try await Poll.until("member-3 storing rows again") {
            let collector = (try await members[2].status())["collector"] as? [String: Any] ?? [:]
            return collector["pid"] as? Int == restarted && collector["stored"] as? Int ?? 0 > 0
        }
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

extension CollectorShareEndToEndTests {
    typealias Input = CollectorInputEndToEndTests

    /// A member that dies takes no rows with it: its place in the group ends with its
    /// connection, so every row published afterwards reaches the living member. (With a
    /// persistent session the broker kept handing every other row to the dead member's
    /// queue, and a device re-sending the same rows could hit it every time.)
    @Test func aMemberThatDiesTakesNoRowsWithIt() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        let members = try Self.group(2, broker: broker, database: database)
        defer { for member in members { member.state.remove() } }
        let running = try members.map { try $0.start() }
        let published = Counter()
        @Sendable func publish() async throws {
            let id = published.next()
            let row =
                #"{"schema":"airloc.log/1","revision":0,"id":"t\#(id)","kind":"track","time":"2026-11-30T10:00:00Z","latitude":52.5,"longitude":13.4,"time_source":"gps","provider":"gpsd","segment":1}"#
            try await Input.publish(broker, "airloc/dies/history", row)
        }
        // Both are in the group once each has stored a row (a row is published until then).
        try await Poll.until("both members stored a row") {
            try await publish()
            let stored = try await members.asyncMap { member in
                ((try await member.status())["collector"] as? [String: Any])?["stored"] as? Int ?? 0
            }
            return stored.allSatisfy { $0 > 0 }
        }
        running[1].signal(SIGKILL)
        _ = try await running[1].wait()
        try await Poll.until("the broker saw member-2 go") {
            broker.log.contains("Client member-2 closed its connection")
                || broker.log.contains("Client member-2 disconnected")
                || broker.log.contains("Socket error on client member-2")
        }
        // What member-2 held when it died was never acknowledged (a logger would send it
        // again); every row published after its death must reach member-1.
        let first = published.count + 1
        for _ in 1...6 { try await publish() }
        let after = (first...published.count).map { "'t\($0)'" }.joined(separator: ",")
        let query = "SELECT count(*) FROM track WHERE id IN (\(after))"
        @Sendable func stored() async throws -> Int {
            Int(try await database.query(query).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        do {
            try await Poll.until("the 6 rows published after member-2 died stored") { try await stored() == 6 }
        } catch {
            throw FixtureError("\(error): \(try await stored()) stored\n--- member-1\n\(running[0].errors)")
        }
        running[0].signal(SIGTERM)
        #expect(try await running[0].wait().status == 0)
        try await broker.stop()
        try await database.stop()
    }
}

extension CollectorShareEndToEndTests {
    /// The operator's sequence: the broker gone a while, so that the loggers pile rows up;
    /// back, and while the backlog drains, one member stopped with its share of it in hand
    /// (SIGSTOP: whatever the broker handed it stays there), SIGKILLed, and started again.
    /// The broker counts those rows delivered. A gap below a device's newest stored row
    /// the group asks for (every gap of a device at once); a lost tail (the device's last
    /// rows, with nothing stored after them) only the device knows, and sends again after
    /// its `ack-timeout` (10 s here). Every row ends stored once; the time from the restart
    /// to whole is printed (the figure docs/performance.md quotes; not asserted: it depends
    /// on the machine).
    @Test func aMemberKilledMidDrainLeavesNoRowBehind() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        let members = try Self.group(2, broker: broker, database: database)
        defer { for member in members { member.state.remove() } }
        var running = try members.map { try $0.start() }
        defer { for member in running { member.stop() } }
        let (worlds, loggers) = try await Collecting.startLoggers(broker, ackTimeout: 10)
        defer { for world in worlds { world.stop() } }
        try await Poll.until("rows stored by the group") { try await Collecting.storedCount(database) >= 6 }
        try await broker.stop()
        for world in worlds {
            try await Fleet.waitForStatus(world, "a backlog of 20 rows") { ($0["unsent"] as? Int ?? 0) >= 20 }
        }
        let second = running[1]
        let subscribed = second.errors.components(separatedBy: "subscribed to").count
        try await broker.start()
        try await Poll.until("member-2 subscribed again") {
            second.errors.components(separatedBy: "subscribed to").count > subscribed
        }
        running[1].signal(SIGSTOP)
        let before = try await Collecting.storedCount(database)
        // Stopped, member-2 may hold the locks of a transaction it was in: PostgreSQL ends
        // its session after 15 s idle in it, and member-1 goes on.
        let first = running[0]
        do {
            try await Poll.until("member-1 draining the backlog", deadline: .seconds(180)) {
                try await Collecting.storedCount(database) >= before + 20
            }
        } catch {
            let sessions = try? await database.query(
                "SELECT application_name, state, wait_event_type, left(query, 80) FROM pg_stat_activity")
            throw FixtureError("\(error)\n--- sessions\n\(sessions ?? "?")\n--- member-1\n\(first.errors.suffix(2000))")
        }
        running[1].signal(SIGKILL)
        _ = try await running[1].wait()
        running[1] = try members[1].start()
        let restarted = ContinuousClock.now
        do {
            try await Collecting.expectEveryRowStoredOnce(worlds, loggers, database)
        } catch {
            let errors = running.map(\.errors).joined(separator: "\n---\n")
            throw FixtureError("\(error)\n--- members\n\(errors)\n--- logger\n\(loggers[0].errors.suffix(3000))")
        }
        let asked = loggers.map { $0.errors.components(separatedBy: "the collector asked for").count - 1 }
        print(
            "kill mid-drain: every row stored once \(ContinuousClock.now - restarted) after the member's restart; "
                + "the devices were asked for ranges again \(asked) times")
        for index in running.indices {
            running[index].signal(SIGTERM)
            #expect(try await running[index].wait().status == 0)
        }
        try await broker.stop()
        try await database.stop()
    }
}

/// A count shared with a `@Sendable` polling closure.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    var count: Int { lock.withLock { value } }

    func next() -> Int {
        lock.withLock {
            value += 1
            return value
        }
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(try await transform(element)) }
        return mapped
    }
}
