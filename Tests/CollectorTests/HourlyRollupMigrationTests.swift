import FleetStore
import Foundation
import TestSupport
import Testing

/// Schema 10 splits `air_hourly`'s US AQI by source. An hour whose rows are still stored is
/// made again from them, each source in its own columns; an hour whose rows `keep` dropped
/// cannot be split, and keeps what it had under its true name (`mixed_aqi_*`).
struct HourlyRollupMigrationTests {
    @Test func hoursWithRowsAreSplitBySourceAndHoursWithoutKeepTheMixedFigure() async throws {
        let server = try await PostgresServer.start()
        defer { Task { try? await server.stop() } }
        let database = try PostgresConnection(conninfo: server.conninfo, password: nil)
        defer { database.close() }
        try CollectorSchema.prepare(database, upTo: 9)
        try database.execute(
            """
            INSERT INTO devices (device_id, first_seen, last_seen, topic_prefix) VALUES ('pi', now(), now(), 'airloc/pi');
            INSERT INTO air (device_id, id, n, revision, time, stored_at, payload, us_aqi)
                VALUES ('pi', 'a1', 1, 0, '2026-11-30T10:00:00Z', now(), '{}', 40);
            INSERT INTO sensor (device_id, id, n, revision, time, stored_at, payload, us_aqi, pm2_5, pm10)
                VALUES ('pi', 's1', 1, 0, '2026-11-30T10:05:00Z', now(), '{}', 42, 10, 15),
                       ('pi', 's2', 2, 0, '2026-11-30T10:15:00Z', now(), '{}', 68, 20, 25);
            INSERT INTO air_hourly (device_id, hour, rows, us_aqi_count, us_aqi_mean, us_aqi_max, pm2_5_count,
                                    pm2_5_mean, pm10_count, pm10_mean, co2_count, co2_mean)
                VALUES ('pi', '2026-11-30T10:00:00Z', 3, 3, 50, 68, 2, 15, 2, 20, 0, NULL),
                       ('pi', '2026-10-01T08:00:00Z', 5, 5, 33, 50, 4, 8, 4, 12, 0, NULL);
            """)
        #expect(try CollectorSchema.prepare(database) == 9)
        let rows = try database.execute(
            """
            SELECT to_char(hour AT TIME ZONE 'UTC', 'MM-DD HH24'), rows, model_aqi_count, model_aqi_mean,
                   measured_aqi_count, measured_aqi_mean, measured_aqi_max, mixed_aqi_count, mixed_aqi_mean
            FROM air_hourly ORDER BY hour
            """)
        #expect(
            rows == [
                ["10-01 08", "5", "0", nil, "0", nil, nil, "5", "33"],
                ["11-30 10", "3", "1", "40", "2", "55", "68", nil, nil],
            ], "\(rows)")
    }
}
