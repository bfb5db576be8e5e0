import FleetWire
import Foundation
import Geo
import Platform

/// `air_hourly`: per device and UTC hour, the air its rows say — kept in the transaction
/// that stores them, so a dashboard reads an hour in one row instead of scanning them all
/// (docs/collector.md gives the queries).
///
/// Contract:
/// - A bucket is made again from the stored rows whenever a batch stores, re-sends or
///   revises a row of its hour — a row moved to another hour by its revision makes both
///   hours again — so a re-sent row never counts twice and a revised one counts as it is
///   now. An hour left with no row loses its bucket.
/// - Columns: `rows` (air and sensor rows of the hour); `us_aqi_count`, `us_aqi_mean`,
///   `us_aqi_max` over every row that carries a US AQI (the model's hour and each
///   particulate reading); `pm2_5_count`, `pm2_5_mean` (corrected where the device
///   corrected it) and `pm10_count`, `pm10_mean` over the particulate readings;
///   `co2_count`, `co2_mean` over the CO₂ readings. Means are null where the count is 0.
/// - Hours are UTC (`date_trunc('hour', time, 'UTC')`), whatever the session's time zone.
enum HourlyRollup {
    static let table = """
        CREATE TABLE IF NOT EXISTS air_hourly (
            device_id text NOT NULL,
            hour timestamptz NOT NULL,
            rows bigint NOT NULL,
            us_aqi_count bigint NOT NULL,
            us_aqi_mean double precision,
            us_aqi_max bigint,
            pm2_5_count bigint NOT NULL,
            pm2_5_mean double precision,
            pm10_count bigint NOT NULL,
            pm10_mean double precision,
            co2_count bigint NOT NULL,
            co2_mean double precision,
            PRIMARY KEY (device_id, hour)
        );

        """

    /// The aggregate of the rows `air` and `sensor` select (`FILTER` names their alias `t`).
    static func aggregate(joining join: String) -> String {
        """
        INSERT INTO air_hourly (device_id, hour, rows, us_aqi_count, us_aqi_mean, us_aqi_max, pm2_5_count,
                                pm2_5_mean, pm10_count, pm10_mean, co2_count, co2_mean)
        SELECT device_id, hour, count(*), count(us_aqi), avg(us_aqi), max(us_aqi), count(pm2_5), avg(pm2_5),
               count(pm10), avg(pm10), count(co2), avg(co2)
        FROM (
            SELECT t.device_id, date_trunc('hour', t.time, 'UTC') AS hour, t.us_aqi, NULL::float8 AS pm2_5,
                   NULL::float8 AS pm10, NULL::float8 AS co2
            FROM air t \(join)
            UNION ALL
            SELECT t.device_id, date_trunc('hour', t.time, 'UTC'), t.us_aqi, coalesce(t.corrected_pm2_5, t.pm2_5),
                   t.pm10, t.co2_ppm
            FROM sensor t \(join)
        ) r
        GROUP BY device_id, hour
        """
    }

    /// Migration 6: the table, filled from every row stored before.
    /// (It empties the table first: a database taken back by hand and migrated again is
    /// filled afresh, not twice.)
    static let migration = table + "DELETE FROM air_hourly;\n" + aggregate(joining: "") + ";\n"

    /// The buckets to make again: the batch's rows' hours, and the hours their stored
    /// versions are in now (read before the batch replaces them).
    static func heldHours(_ rows: [DeviceRow], _ database: PostgresConnection) throws(DatabaseError) -> [String] {
        var hours: [String] = []
        for kind in [RowKind.air, .sensor] {
            // A new row (`mayBeStored` false) has no stored version to look for in every month.
            let keys = rows.filter { $0.kind == kind && $0.mayBeStored != false }.map {
                "{\"device_id\":\(JSONText.quoted($0.device)),\"incarnation\":\(JSONText.quoted($0.incarnation)),"
                    + "\"id\":\"\($0.id)\"}"
            }
            guard !keys.isEmpty else { continue }
            for row in try database.execute(
                """
                SELECT DISTINCT t.device_id, t.time FROM \(kind.rawValue) t
                JOIN jsonb_to_recordset($1::jsonb) AS k(device_id text, incarnation text, id text)
                    USING (device_id, incarnation, id)
                """, ["[" + keys.joined(separator: ",") + "]"])
            {
                guard let device = row[0], let time = row[1] else { continue }
                hours.append("{\"device_id\":\(JSONText.quoted(device)),\"time\":\(JSONText.quoted(time))}")
            }
        }
        return hours
    }

    /// Makes again the buckets of `rows` and of `held` (from ``heldHours(_:_:)``).
    static func refresh(_ rows: [DeviceRow], held: [String], _ database: PostgresConnection) throws(DatabaseError) {
        let touched =
            rows.filter { $0.kind != .track }.map {
                "{\"device_id\":\(JSONText.quoted($0.device)),\"time\":\"\(UTCTime.iso8601($0.time))\"}"
            } + held
        guard !touched.isEmpty else { return }
        let buckets = "[" + touched.joined(separator: ",") + "]"
        let hours = """
            (SELECT DISTINCT device_id, date_trunc('hour', time, 'UTC') AS hour
             FROM jsonb_to_recordset($1::jsonb) AS b(device_id text, time timestamptz))
            """
        try database.execute(
            "DELETE FROM air_hourly h USING \(hours) b WHERE h.device_id = b.device_id AND h.hour = b.hour", [buckets])
        try database.execute(
            aggregate(
                joining: """
                    JOIN \(hours) b ON t.device_id = b.device_id AND t.time >= b.hour
                        AND t.time < b.hour + interval '1 hour'
                    """), [buckets])
    }
}
