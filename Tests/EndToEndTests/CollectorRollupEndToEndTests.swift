import Foundation
import TestSupport
import Testing

/// `air_hourly`, the collector's hourly roll-up, against a real PostgreSQL and mosquitto:
/// one source per column (the model's hour apart from the readings' index), kept in the
/// transaction that stores the rows, not doubled by a row sent again,
/// corrected by a revised one (also when the revision moves it to another hour), and
/// filled from the stored rows when a database of the schema before is migrated.
@Suite(.enabled(if: ExternalTool.available("mosquitto_pub", "mosquitto_sub", "psql")))
struct CollectorRollupEndToEndTests {
    typealias Collecting = CollectorInputEndToEndTests

    static func sensor(_ id: Int, _ time: String, _ fields: String, revision: Int = 0) -> String {
        #"{"schema":"airloc.log/1","revision":\#(revision),"id":"s\#(id)","kind":"sensor","time":"2026-11-30T\#(time)Z","latitude":52.52,"longitude":13.4,"samples":10,"flags":[],"segment":1,\#(fields)}"#
    }

    static let air =
        #"{"schema":"airloc.log/1","id":"a1","kind":"air","time":"2026-11-30T10:00:00Z","latitude":52.52,"longitude":13.4,"us_aqi":40,"category":"good","pm2_5":9.6,"source":"live","segment":1}"#

    /// The table, one line a bucket, as the test reads it.
    static func rollup(_ database: PostgresServer) async throws -> String {
        try await database.query(
            """
            SELECT device_id, to_char(hour AT TIME ZONE 'UTC', 'HH24:MI'), rows,
                   model_aqi_count, round(model_aqi_mean::numeric, 2), model_aqi_max,
                   measured_aqi_count, round(measured_aqi_mean::numeric, 2), measured_aqi_max,
                   pm2_5_count, round(pm2_5_mean::numeric, 2), pm10_count, round(pm10_mean::numeric, 2),
                   co2_count, round(co2_mean::numeric, 1)
            FROM air_hourly ORDER BY 1, 2
            """)
    }

    @Test func theHourIsKeptAsRowsArriveAreSentAgainAndAreRevised() async throws {
        let bench = try await Collecting.Bench.start()
        let (broker, database) = (bench.broker, bench.database)
        for (topic, payload) in [
            ("airloc/pi-a/history", Self.air),
            ("airloc/pi-a/history", Self.sensor(1, "10:05:00", #""model":"sds011","pm2_5":10,"pm10":15,"us_aqi":42"#)),
            ("airloc/pi-a/history", Self.sensor(2, "10:20:00", #""model":"sds011","pm2_5":20,"pm10":25,"us_aqi":68"#)),
            (
                "airloc/pi-a/history",
                Self.sensor(3, "10:30:00", #""name":"co2","model":"scd30","co2_ppm":800,"pm2_5":null"#)
            ),
            ("airloc/pi-a/history", Self.sensor(4, "11:10:00", #""model":"sds011","pm2_5":30,"pm10":35,"us_aqi":89"#)),
            ("airloc/pi-b/history", Self.sensor(1, "10:15:00", #""model":"pms5003","pm2_5":5,"pm10":6,"us_aqi":21"#)),
        ] {
            try await Collecting.publish(broker, topic, payload)
        }
        // Read beside the collector's first batch, which makes the rows' month's partition:
        // this reader may be the victim of a deadlock there, and asks again.
        try await Poll.until("every row stored") {
            (try? await database.query("SELECT (SELECT count(*) FROM sensor) + (SELECT count(*) FROM air)")) == "6\n"
        }
        #expect(
            try await Self.rollup(database) == """
                pi-a|10:00|4|1|40.00|40|2|55.00|68|2|15.00|2|20.00|1|800.0
                pi-a|11:00|1|0|||1|89.00|89|1|30.00|1|35.00|0|
                pi-b|10:00|1|0|||1|21.00|21|1|5.00|1|6.00|0|

                """)

        // s2 again as it was; s1 revised; s4 revised into the hour before.
        try await Collecting.publish(
            broker, "airloc/pi-a/history",
            Self.sensor(2, "10:20:00", #""model":"sds011","pm2_5":20,"pm10":25,"us_aqi":68"#))
        try await Collecting.publish(
            broker, "airloc/pi-a/history",
            Self.sensor(1, "10:05:00", #""model":"sds011","pm2_5":12,"pm10":15,"us_aqi":50"#, revision: 1))
        try await Collecting.publish(
            broker, "airloc/pi-a/history",
            Self.sensor(4, "10:50:00", #""model":"sds011","pm2_5":30,"pm10":35,"us_aqi":89"#, revision: 1))
        try await Poll.until("the revisions stored") {
            try await database.query("SELECT sum(revision) FROM sensor") == "2\n"
        }
        let expected = """
            pi-a|10:00|5|1|40.00|40|3|69.00|89|3|20.67|3|25.00|1|800.0
            pi-b|10:00|1|0|||1|21.00|21|1|5.00|1|6.00|0|

            """
        #expect(try await Self.rollup(database) == expected, "s2 once, s1 as revised, s4 moved to 10:00")

        // A database of schema 5 (no roll-up) with these rows: migrated, the table is filled.
        bench.running.signal(SIGTERM)
        #expect(try await bench.running.wait().status == 0)
        _ = try await database.query("DROP TABLE air_hourly; UPDATE airloc_collector SET version = 5")
        let again = try bench.collector.start()
        try await Poll.until("the database migrated") {
            try await database.query("SELECT max(version) FROM airloc_collector") == CollectorEndToEndTests
                .schemaVersion + "\n" || !again.isRunning
        }
        #expect(again.isRunning, "\(again.errors)")
        #expect(try await Self.rollup(database) == expected, "filled from the stored rows")
        again.signal(SIGTERM)
        #expect(try await again.wait().status == 0)
        bench.collector.state.remove()
        try await broker.stop()
        try await database.stop()
    }
}
