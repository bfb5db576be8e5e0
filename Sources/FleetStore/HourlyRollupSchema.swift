/// `air_hourly`'s shape (``CollectorSchema``'s migrations 6 and 10 make it): the table,
/// and the aggregate over `air` and `sensor` rows that fills a bucket — the collector keeps
/// it as rows arrive (`HourlyRollup`), the migrations fill it from the rows stored before.
///
/// Contract: one source per column. `model_aqi_*` run over the model's hours (`air` rows'
/// US AQI), `measured_aqi_*` over the particulate readings' index (`sensor` rows); a
/// device reading every 10 s has 360 readings an hour and one model value, and neither
/// weighs the other. `mixed_aqi_*` are what schema 6 to 9 kept (both sources in one
/// column), left only for hours whose rows are gone (`[collect] keep`); null elsewhere.
package enum HourlyRollupSchema {
    /// The columns a bucket holds, in the order ``aggregate(joining:)`` writes them.
    package static let columns = """
        device_id, hour, rows, model_aqi_count, model_aqi_mean, model_aqi_max, measured_aqi_count,
        measured_aqi_mean, measured_aqi_max, pm2_5_count, pm2_5_mean, pm10_count, pm10_mean, co2_count, co2_mean
        """

    /// The aggregate of the rows `air` and `sensor` select (`FILTER` names their alias `t`).
    package static func aggregate(joining join: String) -> String {
        """
        INSERT INTO air_hourly (\(columns))
        SELECT device_id, hour, count(*), count(model_aqi), avg(model_aqi), max(model_aqi), count(measured_aqi),
               avg(measured_aqi), max(measured_aqi), count(pm2_5), avg(pm2_5), count(pm10), avg(pm10), count(co2),
               avg(co2)
        FROM (
            SELECT t.device_id, date_trunc('hour', t.time, 'UTC') AS hour, t.us_aqi AS model_aqi,
                   NULL::bigint AS measured_aqi, NULL::float8 AS pm2_5, NULL::float8 AS pm10, NULL::float8 AS co2
            FROM air t \(join)
            UNION ALL
            SELECT t.device_id, date_trunc('hour', t.time, 'UTC'), NULL, t.us_aqi, coalesce(t.corrected_pm2_5, t.pm2_5),
                   t.pm10, t.co2_ppm
            FROM sensor t \(join)
        ) r
        GROUP BY device_id, hour
        """
    }

    /// Migration 6, as it was: the table with one US AQI column for both sources, filled
    /// from every row stored before. (It makes the table afresh: a database taken back by
    /// hand and migrated again, its table of a later shape, is filled again, not twice.)
    package static let migration6 = """
        DROP TABLE IF EXISTS air_hourly;
        CREATE TABLE air_hourly (
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
        DELETE FROM air_hourly;
        INSERT INTO air_hourly (device_id, hour, rows, us_aqi_count, us_aqi_mean, us_aqi_max, pm2_5_count,
                                pm2_5_mean, pm10_count, pm10_mean, co2_count, co2_mean)
        SELECT device_id, hour, count(*), count(us_aqi), avg(us_aqi), max(us_aqi), count(pm2_5), avg(pm2_5),
               count(pm10), avg(pm10), count(co2), avg(co2)
        FROM (
            SELECT t.device_id, date_trunc('hour', t.time, 'UTC') AS hour, t.us_aqi, NULL::float8 AS pm2_5,
                   NULL::float8 AS pm10, NULL::float8 AS co2
            FROM air t
            UNION ALL
            SELECT t.device_id, date_trunc('hour', t.time, 'UTC'), t.us_aqi, coalesce(t.corrected_pm2_5, t.pm2_5),
                   t.pm10, t.co2_ppm
            FROM sensor t
        ) r
        GROUP BY device_id, hour;

        """

    /// Migration 10: one source per column. The mixed columns are kept under their true
    /// name (`mixed_aqi_*`) for the hours whose rows `keep` dropped (they cannot be split
    /// any more); every hour whose rows are still stored is made again from them.
    /// (Each step is skipped where it was done: a database taken back by hand keeps its shape.)
    package static let migration10 = """
        DO $$ BEGIN
            IF EXISTS (SELECT 1 FROM information_schema.columns
                       WHERE table_name = 'air_hourly' AND column_name = 'us_aqi_count') THEN
                ALTER TABLE air_hourly RENAME COLUMN us_aqi_count TO mixed_aqi_count;
                ALTER TABLE air_hourly RENAME COLUMN us_aqi_mean TO mixed_aqi_mean;
                ALTER TABLE air_hourly RENAME COLUMN us_aqi_max TO mixed_aqi_max;
                ALTER TABLE air_hourly ALTER COLUMN mixed_aqi_count DROP NOT NULL;
            END IF;
        END $$;
        ALTER TABLE air_hourly
            ADD COLUMN IF NOT EXISTS model_aqi_count bigint NOT NULL DEFAULT 0,
            ADD COLUMN IF NOT EXISTS model_aqi_mean double precision,
            ADD COLUMN IF NOT EXISTS model_aqi_max bigint,
            ADD COLUMN IF NOT EXISTS measured_aqi_count bigint NOT NULL DEFAULT 0,
            ADD COLUMN IF NOT EXISTS measured_aqi_mean double precision,
            ADD COLUMN IF NOT EXISTS measured_aqi_max bigint;
        DELETE FROM air_hourly h
        WHERE EXISTS (SELECT 1 FROM air t WHERE t.device_id = h.device_id
                          AND t.time >= h.hour AND t.time < h.hour + interval '1 hour')
           OR EXISTS (SELECT 1 FROM sensor t WHERE t.device_id = h.device_id
                          AND t.time >= h.hour AND t.time < h.hour + interval '1 hour');
        \(aggregate(joining: "")) ON CONFLICT (device_id, hour) DO NOTHING;

        """
}
