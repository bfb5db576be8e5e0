-- A fleet in the collector's tables for `make bench` (scripts/bench-fleet.sh): :devices
-- devices, each with a last position in the hour before :now, and device fleet-0000 with a
-- day of one-second fixes (:points of them) ending at :now, an air row an hour and a
-- particulate reading a minute. The rows have the shape `airloc collect` stores (the
-- payload is the published line); run with psql -v devices=N -v points=N -v now="'…'".
BEGIN;
INSERT INTO devices (device_id, first_seen, last_seen, topic_prefix, incarnation)
SELECT format('fleet-%s', lpad(d::text, 4, '0')), :now::timestamptz - interval '1 day', :now::timestamptz,
       format('airloc/fleet-%s', lpad(d::text, 4, '0')), 'bench'
FROM generate_series(0, :devices - 1) d;

-- Every device's last hour: a fix a minute.
INSERT INTO track (device_id, id, n, revision, time, latitude, longitude, time_source, accuracy_m, mode,
                   satellites, provider, segment, stored_at, payload, incarnation)
SELECT format('fleet-%s', lpad(d::text, 4, '0')), 't' || m, m, 0, :now::timestamptz - (60 - m) * interval '1 minute',
       48 + (d % 40) * 0.25 + m * 0.0001, 2 + (d / 40) * 0.25, 'gps', 5, '3d', 9, 'gpsd', 1,
       :now::timestamptz, jsonb_build_object('id', 't' || m, 'kind', 'track', 'latitude', 48 + (d % 40) * 0.25 + m * 0.0001,
       'longitude', 2 + (d / 40) * 0.25, 'segment', 1), 'bench'
FROM generate_series(1, :devices - 1) d, generate_series(1, 60) m;

-- fleet-0000's day.
INSERT INTO track (device_id, id, n, revision, time, latitude, longitude, time_source, altitude_m, accuracy_m,
                   mode, satellites, provider, segment, stored_at, payload, incarnation)
SELECT 'fleet-0000', 't' || s, s, 0, :now::timestamptz - (:points - s) * interval '1 second',
       52.52 + sin(s / 3000.0) * 0.05, 13.405 + cos(s / 3000.0) * 0.08, 'gps', 34.5, 5, '3d', 9, 'gpsd', 1 + s / 20000,
       :now::timestamptz,
       jsonb_build_object('id', 't' || s, 'kind', 'track', 'time', to_char((:now::timestamptz - (:points - s) * interval '1 second') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                          'latitude', 52.52 + sin(s / 3000.0) * 0.05, 'longitude', 13.405 + cos(s / 3000.0) * 0.08,
                          'altitude_m', 34.5, 'segment', 1 + s / 20000),
       'bench'
FROM generate_series(1, :points) s;

INSERT INTO air (device_id, id, n, revision, time, latitude, longitude, us_aqi, category, pm2_5, source, segment,
                 stored_at, payload, incarnation)
SELECT format('fleet-%s', lpad(d::text, 4, '0')), 'a' || h, h, 0, date_trunc('hour', :now::timestamptz) - (24 - h) * interval '1 hour',
       48 + (d % 40) * 0.25, 2 + (d / 40) * 0.25, 20 + (d * 7 + h * 11) % 160, 'moderate', 12.5, 'forecast', 1,
       :now::timestamptz, jsonb_build_object('id', 'a' || h, 'kind', 'air', 'us_aqi', 20 + (d * 7 + h * 11) % 160), 'bench'
FROM generate_series(0, :devices - 1) d, generate_series(1, 24) h;

INSERT INTO sensor (device_id, id, n, revision, time, latitude, longitude, model, pm2_5, pm10, us_aqi, segment,
                    stored_at, payload, incarnation)
SELECT format('fleet-%s', lpad(d::text, 4, '0')), 's' || m, m, 0, :now::timestamptz - (60 - m) * interval '1 minute',
       48 + (d % 40) * 0.25, 2 + (d / 40) * 0.25, 'sds011', 8 + m % 20, 15, 33 + m % 40, 1,
       :now::timestamptz, jsonb_build_object('id', 's' || m, 'kind', 'sensor', 'pm2_5', 8 + m % 20), 'bench'
FROM generate_series(0, :devices - 1, 2) d, generate_series(1, 60) m;
COMMIT;
ANALYZE;
