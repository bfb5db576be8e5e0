import FleetWire
import Foundation
import Geo
import Settings
import TestSupport
import Testing

@testable import Collector
@testable import FleetStore

/// The row tables by month, in a real PostgreSQL: a database of schema 6 (as this version
/// made it) migrated in place with every row and id kept; a row far in the past in the
/// default partition; a revision that moves a row to another month stored once; whole
/// months dropped by `keep`; what `collect status` says of it.
@Suite(.enabled(if: ExternalTool.available("psql")))
struct PartitionMonthTests {
    static let now = Date()
    static let month = PartitionMonth(now)

    /// A time `back` months before this one, on its 3rd day at `hour`.
    static func time(monthsBack back: Int, hour: Int = 10) -> Date {
        PartitionMonth(index: month.index - back).start.addingTimeInterval(2 * 86_400 + Double(hour) * 3600)
    }

    static func track(_ id: Int, _ time: Date, revision: Int = 0) throws -> DeviceRow {
        try DeviceRow(
            device: "pi-a",
            payload:
                #"{"schema":"airloc.log/1","id":"t\#(id)","kind":"track","revision":\#(revision),"time":"\#(UTCTime.iso8601(time))","latitude":52.5,"longitude":13.4,"time_source":"gps","mode":"3d","provider":"gpsd","segment":1}"#,
            now: now)
    }

    static func sensor(_ id: Int, _ time: Date, pm: Int) throws -> DeviceRow {
        try DeviceRow(
            device: "pi-a",
            payload:
                #"{"schema":"airloc.log/1","id":"s\#(id)","kind":"sensor","time":"\#(UTCTime.iso8601(time))","latitude":52.5,"longitude":13.4,"model":"sds011","pm2_5":\#(pm),"pm10":\#(pm),"us_aqi":50,"samples":10,"flags":[],"segment":1}"#,
            now: now)
    }

    /// Every stored row, one line each, as a person comparing them would read them.
    static func rows(_ database: PostgresConnection) throws -> [String] {
        try ["track", "air", "sensor"].flatMap { table in
            try database.execute(
                """
                SELECT device_id, incarnation, id, n, revision, to_char(time AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'),
                       payload::text FROM \(table) ORDER BY device_id, n
                """
            ).map { table + " " + $0.map { $0 ?? "null" }.joined(separator: "|") }
        }
    }

    static func partitions(_ database: PostgresConnection, _ table: String) throws -> [String] {
        try Retention.partitions(DeviceRow.Kind(rawValue: table)!, database).map(\.0)
    }

    /// The span a misdated row is counted outside of is the months that get a partition
    /// of their own (24 back to the next), to the second at both ends.
    @Test func thePlausibleSpanIsTheMonthsThatGetAPartition() throws {
        let span = PartitionMonth.span(now: Self.now)
        let first = PartitionMonth(index: Self.month.index - PartitionMonth.monthsBack)
        let afterLast = Self.month.next.next
        for (time, inside) in [
            (first.start, true), (first.start.addingTimeInterval(-1), false),
            (afterLast.start.addingTimeInterval(-1), true), (afterLast.start, false),
            (UTCTime.parse("2099-01-01T00:00:00Z")!, false), (UTCTime.parse("2000-01-01T00:00:00Z")!, false),
        ] {
            #expect(span.contains(time) == inside, "\(time)")
            #expect(PartitionMonth(time).wanted(now: Self.now, keep: nil) == inside, "\(time)")
        }
    }

    @Test func aDatabaseOfTheVersionBeforeIsPartitionedInPlaceAndKeptByMonth() async throws {
        let server = try await PostgresServer.start()
        defer { Task { try? await server.stop() } }
        let database = try PostgresConnection(conninfo: server.conninfo, password: nil)
        defer { database.close() }

        // Schema 6, as this version made it, holding rows of three months and of 2006 (a GPS
        // week roll-over), stored as schema 6 stored them.
        try CollectorSchema.prepare(database, upTo: 6)
        #expect(try Retention(keep: nil, keepHourly: nil).storage(database, now: Self.now) == nil, "not partitioned")
        let before = [
            try Self.track(1, Self.time(monthsBack: 2)), try Self.track(2, Self.time(monthsBack: 1)),
            try Self.track(3, Self.time(monthsBack: 0, hour: 0)),
            try Self.track(4, UTCTime.parse("2006-04-10T12:00:00Z")!),
            try Self.sensor(1, Self.time(monthsBack: 1), pm: 10),
        ]
        try database.execute(
            "INSERT INTO devices (device_id, first_seen, last_seen, topic_prefix) VALUES ('pi-a', now(), now(), 'airloc/pi-a')"
        )
        for row in before {
            try database.execute(
                """
                INSERT INTO \(row.kind.rawValue) (device_id, id, n, revision, time, stored_at, payload)
                VALUES ('pi-a', $1, $2, $3, $4, now(), $5)
                """, [row.id, String(row.number), String(row.revision), UTCTime.iso8601(row.time), row.line])
        }
        try database.execute(HourlyRollupSchema.migration6)
        let stored = try Self.rows(database)
        #expect(stored.count == 5)

        try CollectorSchema.prepare(database)
        #expect(try Self.rows(database) == stored, "every row and id kept")
        for table in ["track", "air", "sensor"] {
            #expect(try database.execute("SELECT relkind FROM pg_class WHERE oid = $1::regclass", [table]) == [["p"]])
            let brin = try database.execute(
                "SELECT count(*) FROM pg_indexes WHERE tablename = $1 AND indexdef LIKE '%USING brin (\"time\")%'",
                [table])
            #expect(brin == [["1"]], "\(table) has a BRIN index on time")
            let ids = try database.execute(
                "SELECT indexdef FROM pg_indexes WHERE tablename = $1 AND indexname = $2", [table, "\(table)_device_n"])
            #expect(ids.first?.first??.hasSuffix("(device_id, incarnation, n)") == true, "\(ids)")
        }
        let months = (0...2).reversed().map { PartitionMonth(index: Self.month.index - $0) } + [Self.month.next]
        #expect(try Self.partitions(database, "track") == months.map { $0.name(.track) })
        #expect(try Self.partitions(database, "sensor") == months.suffix(3).map { $0.name(.sensor) })
        #expect(try database.execute("SELECT id FROM track_default") == [["t4"]], "2006 is in the default partition")

        // A revision moves t2 a month back: stored once, at its new time. Then t2's first
        // version arrives late: it does not come back.
        let store = RowStore(database: database)
        let moved = try Self.track(2, Self.time(monthsBack: 2, hour: 12), revision: 1)
        for rows in [[moved], [try Self.track(2, Self.time(monthsBack: 1))]] {
            try PartitionMonth.make(Array(PartitionMonth.months(for: rows, now: Self.now, keep: nil)), database)
            #expect(try store.write(rows: rows, devices: [:], throughs: [:]).isEmpty)
            #expect(
                try database.execute("SELECT revision, tableoid::regclass::text FROM track WHERE id = 't2'")
                    == [["1", PartitionMonth(index: Self.month.index - 2).name(.track)]])
        }
        // A row of a month with no partition, from a clock far off, lands all the same.
        let stray = try Self.track(5, UTCTime.parse("1980-01-06T00:00:00Z")!)
        #expect(try store.write(rows: [stray], devices: [:], throughs: [:]).isEmpty)

        // keep = 20 days, applied on this month's 2nd day: the month two back ended at least
        // 28 days before, and goes whole; the month before stays; the default's rows stay
        // (their stamps are a clock far off: their age is unknown). The roll-up is kept,
        // until keep-hourly says otherwise.
        let (keep, day) = (20.0 * 86_400, Self.month.start.addingTimeInterval(86_400))
        let retention = Retention(keep: keep, keepHourly: nil)
        let oldest = PartitionMonth(index: Self.month.index - 2)
        let status = try #require(try retention.storage(database, now: day))
        #expect(status.months == months.map(\.text))
        #expect(status.rowsOutsideMonths == 2)
        #expect(status.nextDrop == .init(month: oldest.text, at: UTCTime.iso8601Seconds(day)))
        let hourly = try database.execute("SELECT count(*) FROM air_hourly")
        #expect(hourly == [["1"]], "s1's hour")
        let outcome = try retention.apply(database, now: day)
        #expect(outcome.dropped == [oldest.name(.track)])
        #expect(
            try database.execute("SELECT id FROM track ORDER BY n") == [["t3"], ["t4"], ["t5"]],
            "t4 (2006) and t5 (1980) are kept in the default partition")
        #expect(try database.execute("SELECT count(*) FROM air_hourly") == hourly, "the roll-up is kept")
        let after = try #require(try retention.storage(database, now: day))
        #expect(after.months == months.dropFirst().map(\.text))
        #expect(after.rowsOutsideMonths == 2)
        let nextDrop = UTCTime.iso8601Seconds(Self.month.start.addingTimeInterval(keep))
        #expect(
            after.text
                == "storage:   3 months (\(after.months[0]) to \(Self.month.next.text)); keep 20d, hourly roll-up all; "
                + "next drop: \(after.months[0]) at \(nextDrop); 2 rows outside every month (a clock far off: kept, "
                + "never dropped by keep; docs/collector.md says how to see, move or delete them)")
        // A month detached by a drop cut short (the collector killed between its steps) is
        // found and dropped by the next round; the roll-up's old hours go by keep-hourly.
        try database.execute("CREATE TABLE track_2001_01 (LIKE track)")
        let hours = try Retention(keep: keep, keepHourly: keep).apply(database, now: day)
        #expect(hours.hoursDeleted == 1 && hours.dropped == ["track_2001_01"])
    }

    /// A role that may store rows but not make a month's partition (the tables are an
    /// administrator's): the row lands in the default partition, and the warning is said
    /// once, not again with the next batch.
    @Test func aMonthThatCannotBeMadeIsSaidOnceAndItsRowsLand() async throws {
        let server = try await PostgresServer.start()
        defer { Task { try? await server.stop() } }
        let admin = try PostgresConnection(conninfo: server.conninfo, password: nil)
        defer { admin.close() }
        try CollectorSchema.prepare(admin)
        try admin.execute("CREATE ROLE writer LOGIN")
        try admin.execute("GRANT CREATE ON SCHEMA public TO writer")
        try admin.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO writer")
        var settings = CollectSettings()
        settings.broker.url = "mqtt://broker.test"
        settings.database = server.conninfo.replacingOccurrences(of: "user=postgres", with: "user=writer")
        let store = PostgresStore(
            plan: try CollectorPlan(settings: settings, stateDirectory: URL(fileURLWithPath: "/nonexistent")))
        if case .failure(let error) = await store.open() { Issue.record("\(error)") }
        let device = ["pi-a": RowStore.DeviceUpdate(prefix: "airloc/pi-a", seen: Self.now)]
        var warnings: [String] = []
        for id in [1, 2] {
            var row = try Self.track(id, Self.time(monthsBack: 3, hour: id))
            row.mayBeStored = false
            let written = await store.write(CollectorMachine.Batch(rows: [row], devices: device, throughs: [:]))
            if case .failure(let error) = written { Issue.record("\(error)") }
            warnings += store.takeNotices().filter { $0.level == .warning }.map(\.message)
        }
        #expect(warnings.count == 1 && warnings[0].contains("cannot make the month's partitions"), "\(warnings)")
        #expect(try admin.execute("SELECT id FROM track_default ORDER BY n") == [["t1"], ["t2"]])
        await store.close()
    }

    /// New readings are added to their hour's bucket, and one PostgreSQL refuses (jsonb
    /// takes no \u0000) is in none: the bucket counts what the table holds.
    @Test func newRowsAreAddedRefusedOnesAreNotAndHoursPastKeepAreLeft() async throws {
        let server = try await PostgresServer.start()
        defer { Task { try? await server.stop() } }
        let database = try PostgresConnection(conninfo: server.conninfo, password: nil)
        defer { database.close() }
        try CollectorSchema.prepare(database)
        try database.execute(
            "INSERT INTO devices (device_id, first_seen, last_seen, topic_prefix) VALUES ('pi-a', now(), now(), 'airloc/pi-a')"
        )
        let time = Self.time(monthsBack: 0)
        var rows = [try Self.sensor(1, time, pm: 10), try Self.sensor(2, time.addingTimeInterval(60), pm: 20)]
        // A NUL in a value, which the collector refuses before it builds a batch (DeviceRow):
        // made here after the check, to prove that the store alone still refuses only that row.
        var bad = try DeviceRow(
            device: "pi-a", payload: rows[1].line.replacingOccurrences(of: #""id":"s2""#, with: #""id":"s3""#),
            now: Self.now)
        bad.columns["serial"] = .text("a\u{0}b")
        rows.append(bad)
        for index in rows.indices { rows[index].mayBeStored = false }
        let refused = try RowStore(database: database).write(rows: rows, devices: [:], throughs: [:])
        #expect(refused.rows.map(\.0.id) == ["s3"])
        #expect(
            try database.execute("SELECT rows, pm2_5_count, pm2_5_mean FROM air_hourly")
                == [["2", "2", "15"]], "s1 and s2, not s3")
        // s2 sent again with s4: s2's hour is made again from the rows, s4 counted once in it.
        var again = [rows[1], try Self.sensor(4, time.addingTimeInterval(120), pm: 30)]
        again[0].mayBeStored = true
        again[1].mayBeStored = false
        #expect(try RowStore(database: database).write(rows: again, devices: [:], throughs: [:]).isEmpty)
        #expect(try database.execute("SELECT rows, pm2_5_count, pm2_5_mean FROM air_hourly") == [["3", "3", "20"]])
        // The hour's rows dropped (as `keep` drops them), s2 sent again: the bucket, older
        // than what is kept, is left as it was, not made again from s2 alone.
        try database.execute("DELETE FROM sensor")
        let kept = RowStore(database: database, rollupSince: time.addingTimeInterval(7200))
        #expect(try kept.write(rows: [again[0]], devices: [:], throughs: [:]).isEmpty)
        #expect(try database.execute("SELECT rows, pm2_5_count, pm2_5_mean FROM air_hourly") == [["3", "3", "20"]])
    }
}
