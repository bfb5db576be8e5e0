import Foundation
import TestSupport
import Testing

/// `[collect] keep` through the collector as it runs, against a real PostgreSQL and
/// mosquitto: a month older than `keep` is dropped whole at the collector's first batch,
/// stderr says so, the newer rows stay, and `collect status` says what is kept.
@Suite(.enabled(if: ExternalTool.available("mosquitto_pub", "psql")))
struct CollectorRetentionEndToEndTests {
    typealias Collecting = CollectorInputEndToEndTests
    typealias Process = CollectorEndToEndTests.CollectorProcess

    static func track(_ id: Int, _ time: Date) -> String {
        #"{"schema":"airloc.log/1","id":"t\#(id)","kind":"track","time":"\#(ISO8601DateFormatter().string(from: time))","latitude":52.52,"longitude":13.405,"time_source":"gps","provider":"gpsd","segment":1}"#
    }

    @Test func aMonthOlderThanKeepIsDroppedWholeAndSaidSo() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        // Three months back, on the 10th: the month ended at least 59 days ago.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let thisMonth = calendar.date(from: calendar.dateComponents([.year, .month], from: Date()))!
        let old = calendar.date(byAdding: DateComponents(month: -3, day: 9), to: thisMonth)!
        let oldMonth = String(ISO8601DateFormatter().string(from: old).prefix(7))
        let partition = "track_" + oldMonth.replacingOccurrences(of: "-", with: "_")

        // Kept all: the old row has its month's partition.
        let keepAll = try Process(broker: broker, database: database)
        defer { keepAll.state.remove() }
        let first = try keepAll.start()
        defer { first.stop() }
        try await Poll.until("the collector subscribed") { first.errors.contains("subscribed to") }
        try await Collecting.publish(broker, "airloc/pi-k/history", Self.track(1, old))
        try await Poll.until("the old row stored") {
            try await database.query("SELECT tableoid::regclass FROM track WHERE id = 't1'") == "\(partition)\n"
        }
        first.signal(SIGTERM)
        #expect(try await first.wait().status == 0)

        // keep = 40d: at its first batch the collector drops that month, and keeps the new row.
        let keeping = try Process(broker: broker, database: database, config: "[collect]\nkeep = 40d\n")
        defer { keeping.state.remove() }
        let running = try keeping.start()
        defer { running.stop() }
        try await Poll.until("the collector subscribed again") { running.errors.contains("subscribed to") }
        try await Collecting.publish(broker, "airloc/pi-k/history", Self.track(2, Date()))
        try await Poll.until("the new row stored") {
            try await database.query("SELECT count(*) FROM track WHERE id = 't2'") == "1\n"
        }
        try await Poll.until("the drop said") { running.errors.contains("[collect] keep: dropped \(partition)") }
        #expect(try await database.query("SELECT id FROM track ORDER BY id") == "t2\n", "t1's month is gone")
        #expect(try await database.query("SELECT to_regclass('\(partition)') IS NULL") == "t\n")

        let status = try await keeping.run(["collect", "status"])
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout.contains("keep 40d, hourly roll-up all; next drop: "), "\(status.stdout)")
        #expect(!status.stdout.contains(oldMonth), "\(status.stdout)")
        running.signal(SIGTERM)
        #expect(try await running.wait().status == 0)
        try await broker.stop()
        try await database.stop()
    }
}
