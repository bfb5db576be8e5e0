import FleetStore
import FleetWire
import Foundation
import Geo
import Platform

/// `air_hourly`: per device and UTC hour, the air its rows say — kept in the transaction
/// that stores them, so a dashboard reads an hour in one row instead of scanning them all
/// (docs/collector.md gives the queries).
///
/// Contract:
/// - A bucket is made again from the stored rows whenever a batch re-sends or revises a
///   row of its hour — a row moved to another hour by its revision makes both hours
///   again — so a re-sent row never counts twice and a revised one counts as it is now. An
///   hour left with no row loses its bucket. A new row (one the collector's ledger holds no
///   version of) is added to its bucket: count, mean weighed by counts, max.
/// - Columns: `rows` (air and sensor rows of the hour); `model_aqi_count`, `model_aqi_mean`,
///   `model_aqi_max` over the model's hours (`air` rows' US AQI); `measured_aqi_count`,
///   `measured_aqi_mean`, `measured_aqi_max` over the particulate readings' index — one
///   source per column; `pm2_5_count`, `pm2_5_mean` (corrected where the device
///   corrected it) and `pm10_count`, `pm10_mean` over the particulate readings;
///   `co2_count`, `co2_mean` over the CO₂ readings. Means are null where the count is 0.
/// - Hours are UTC (`date_trunc('hour', time, 'UTC')`), whatever the session's time zone.
enum HourlyRollup {
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

    /// Makes again the buckets of the rows that may have been stored before (sent again,
    /// revised: `mayBeStored`) and of `held` (from ``heldHours(_:_:)``), from the stored
    /// rows; adds the new rows of every other hour to their bucket. (Made again each time, an
    /// hour cost every row it held so far, for each batch that touched it.)
    /// An hour before `since` is never made again (its rows may have been dropped); a new
    /// row of it is still added.
    static func refresh(_ rows: [DeviceRow], held: [String], since: Date?, _ database: PostgresConnection)
        throws(DatabaseError)
    {
        let rows = rows.filter { $0.kind != .track }
        let since = since.map(UTCTime.iso8601)
        let touched =
            rows.filter { $0.mayBeStored != false }.map {
                "{\"device_id\":\(JSONText.quoted($0.device)),\"time\":\"\(UTCTime.iso8601($0.time))\"}"
            } + held
        let buckets = "[" + touched.joined(separator: ",") + "]"
        let hours = """
            (SELECT DISTINCT device_id, date_trunc('hour', time, 'UTC') AS hour
             FROM jsonb_to_recordset($1::jsonb) AS b(device_id text, time timestamptz)
             WHERE $2::timestamptz IS NULL OR date_trunc('hour', time, 'UTC') >= $2::timestamptz)
            """
        if !touched.isEmpty {
            try database.execute(
                "DELETE FROM air_hourly h USING \(hours) b WHERE h.device_id = b.device_id AND h.hour = b.hour",
                [buckets, since])
            try database.execute(
                HourlyRollupSchema.aggregate(
                    joining: """
                        JOIN \(hours) b ON t.device_id = b.device_id AND t.time >= b.hour
                            AND t.time < b.hour + interval '1 hour'
                        """), [buckets, since])
        }
        let new = rows.filter { $0.mayBeStored == false }.map(values)
        guard !new.isEmpty else { return }
        // Means are kept, not sums: a bucket's mean and the batch's are weighed by their counts.
        let merged = ["model_aqi", "measured_aqi", "pm2_5", "pm10", "co2"].map { name in
            """
            \(name)_count = air_hourly.\(name)_count + EXCLUDED.\(name)_count,
            \(name)_mean = CASE WHEN air_hourly.\(name)_count + EXCLUDED.\(name)_count = 0 THEN NULL
                ELSE (coalesce(air_hourly.\(name)_mean, 0) * air_hourly.\(name)_count
                      + coalesce(EXCLUDED.\(name)_mean, 0) * EXCLUDED.\(name)_count)
                     / (air_hourly.\(name)_count + EXCLUDED.\(name)_count) END
            """
        }.joined(separator: ",\n")
        try database.execute(
            """
            INSERT INTO air_hourly (\(HourlyRollupSchema.columns))
            SELECT n.device_id, date_trunc('hour', n.time, 'UTC'), count(*), count(model_aqi), avg(model_aqi),
                   max(model_aqi)::bigint, count(measured_aqi), avg(measured_aqi), max(measured_aqi)::bigint,
                   count(pm2_5), avg(pm2_5), count(pm10), avg(pm10), count(co2), avg(co2)
            FROM jsonb_to_recordset($3::jsonb)
                AS n(device_id text, time timestamptz, model_aqi float8, measured_aqi float8, pm2_5 float8,
                     pm10 float8, co2 float8)
            WHERE NOT EXISTS (SELECT 1 FROM \(hours) b
                              WHERE b.device_id = n.device_id AND b.hour = date_trunc('hour', n.time, 'UTC'))
            GROUP BY 1, 2
            ON CONFLICT (device_id, hour) DO UPDATE SET rows = air_hourly.rows + EXCLUDED.rows,
                model_aqi_max = greatest(air_hourly.model_aqi_max, EXCLUDED.model_aqi_max),
                measured_aqi_max = greatest(air_hourly.measured_aqi_max, EXCLUDED.measured_aqi_max),
            \(merged)
            """, [buckets, since, "[" + new.joined(separator: ",") + "]"])
    }

    /// A new row's values as ``HourlyRollupSchema.aggregate(joining:)`` counts them: an air
    /// row its US AQI (the model's); a reading its US AQI (the measured one), PM2.5
    /// (corrected where it was), PM10 and CO₂.
    private static func values(_ row: DeviceRow) -> String {
        func value(_ name: String) -> String {
            guard let value = row.columns[name] else { return "null" }
            return value.jsonText
        }
        let reading = row.kind == .sensor
        let corrected = row.columns["corrected_pm2_5"].map { $0 != .null } ?? false
        let pm2_5 = value(corrected ? "corrected_pm2_5" : "pm2_5")
        return "{\"device_id\":\(JSONText.quoted(row.device)),\"time\":\"\(UTCTime.iso8601(row.time))\","
            + "\"model_aqi\":\(reading ? "null" : value("us_aqi")),"
            + "\"measured_aqi\":\(reading ? value("us_aqi") : "null"),\"pm2_5\":\(reading ? pm2_5 : "null"),"
            + "\"pm10\":\(reading ? value("pm10") : "null"),\"co2\":\(reading ? value("co2_ppm") : "null")}"
    }
}
