/// `air_hourly`'s shape (``CollectorSchema``'s migration 6 makes it): the table, and the
/// aggregate over `air` and `sensor` rows that fills a bucket — the collector keeps it as
/// rows arrive (`HourlyRollup`), the migration fills it from the rows stored before.
package enum HourlyRollupSchema {
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
    package static func aggregate(joining join: String) -> String {
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
    package static let migration = table + "DELETE FROM air_hourly;\n" + aggregate(joining: "") + ";\n"
}
