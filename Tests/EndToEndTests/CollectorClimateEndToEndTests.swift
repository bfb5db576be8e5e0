import Foundation
import TestSupport
import Testing

/// The collector with several sensors per device, against a real PostgreSQL and
/// mosquitto: a database of the schema before (no sensor names, no CO₂ or pressure
/// columns) is migrated in place with its rows kept, and a CO₂ sensor's and a BME280's
/// rows land in their own columns beside the particulate sensor's.
@Suite(.enabled(if: ExternalTool.available("mosquitto_pub", "mosquitto_sub", "psql")))
struct CollectorClimateEndToEndTests {
    typealias Collecting = CollectorInputEndToEndTests

    static func row(_ id: Int, _ fields: String) -> String {
        #"{"schema":"airloc.log/1","id":"s\#(id)","kind":"sensor","time":"2026-11-30T10:00:0\#(id)Z","latitude":52.52,"longitude":13.4,"samples":10,"window_s":10,"flags":[],"segment":1,\#(fields)}"#
    }

    @Test func aDatabaseOfTheSchemaBeforeIsMigratedAndTakesClimateRows() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        let collector = try Collecting.Collector(broker: broker, database: database)
        defer { collector.state.remove() }
        let first = try collector.start()
        try await Poll.until("the collector subscribed") {
            first.errors.contains("subscribed to") || !first.isRunning
        }
        try await Collecting.publish(
            broker, "airloc/pi/history", Self.row(1, #""model":"sds011","pm2_5":11.5,"pm10":20"#))
        try await Poll.until("the particulate row stored") {
            try await database.query("SELECT count(*) FROM sensor") == "1\n"
        }
        first.signal(SIGTERM)
        #expect(try await first.wait().status == 0)
        // As schema 3 left it.
        _ = try await database.query(
            """
            ALTER TABLE sensor DROP COLUMN name, DROP COLUMN co2_ppm, DROP COLUMN pressure_hpa;
            UPDATE airloc_collector SET version = 3;
            """)

        let running = try collector.start()
        try await Poll.until("the collector subscribed again") {
            running.errors.contains("subscribed to") || !running.isRunning
        }
        #expect(
            try await database.query("SELECT max(version) FROM airloc_collector") == CollectorEndToEndTests
                .schemaVersion + "\n")
        try await Collecting.publish(
            broker, "airloc/pi/history",
            Self.row(
                2,
                #""name":"co2","model":"scd30","co2_ppm":845,"temperature_c":21.5,"relative_humidity":41,"pm2_5":null,"pm10":null"#
            ))
        try await Collecting.publish(
            broker, "airloc/pi/history",
            Self.row(3, #""name":"room","model":"bme280","temperature_c":21.4,"pressure_hpa":1013.2"#))
        try await Poll.until("both climate rows stored") {
            try await database.query("SELECT count(*) FROM sensor") == "3\n"
        }
        let stored = try await database.query(
            """
            SELECT id || ' ' || coalesce(name, '-') || ' ' || coalesce(co2_ppm::text, '-') || ' '
                   || coalesce(pressure_hpa::text, '-') || ' ' || coalesce(pm2_5::text, '-')
            FROM sensor ORDER BY id
            """)
        #expect(stored == "s1 - - - 11.5\ns2 co2 845 - -\ns3 room - 1013.2 -\n", "\(stored)")
        running.signal(SIGTERM)
        #expect(try await running.wait().status == 0, "\(running.errors)")
        try await broker.stop()
        try await database.stop()
    }
}
