import FleetWire
import Foundation
import Geo

/// One device's latest position and air, as the fleet page's map and `GET /api/last` show
/// it.
public struct LastPosition: Sendable, Equatable {
    /// The device.
    public var deviceID: String
    /// Its latest track row's time (nil: no track row yet).
    public var time: Date?
    /// Where that row was (nil without one, or published without a position).
    public var coordinate: Coordinate?
    /// Its latest model hour's US AQI.
    public var modelAQI: Int?
    /// Its latest particulate reading: when, the US AQI of it, and its PM2.5 (corrected
    /// when the device corrected it).
    public var measured: (time: Date, aqi: Int?, pm2_5: Double?)?
    /// Its newest row of any kind (a station without GPS has no track row, a CO₂ sensor no
    /// particulate one): what says whether the device is still heard from.
    public var newestRow: Date?

    /// A device known by id alone (the rest unknown).
    public init(deviceID: String) { self.deviceID = deviceID }

    /// The same device, position, model index and reading.
    public static func == (a: LastPosition, b: LastPosition) -> Bool {
        a.deviceID == b.deviceID && a.time == b.time && a.coordinate == b.coordinate && a.modelAQI == b.modelAQI
            && a.measured?.time == b.measured?.time && a.measured?.aqi == b.measured?.aqi
            && a.measured?.pm2_5 == b.measured?.pm2_5 && a.newestRow == b.newestRow
    }
}

/// What the fleet page reads of the collector's tables (docs/collector.md has them), each
/// a query over the `(device_id, time)` indexes.
///
/// Contract: windows are `[since, until)`; a position is shown at `decimals` decimals
/// (the coarse grid) when given, without its altitude; nothing is written.
extension FleetDatabase {
    /// Every device's latest position, model AQI and particulate reading, by device id.
    /// At most `limit` of them, those after the device id `after` (nil: from the first).
    /// Rows dated after `notAfter` (a device whose clock says 2099) are none of these: one
    /// such row would otherwise be the device's last for good.
    public func last(after: String? = nil, limit: Int = Int(Int32.max), notAfter: Date? = nil)
        throws(DatabaseError) -> [LastPosition]
    {
        try read { database throws(DatabaseError) in
            try database.execute(
                """
                SELECT d.device_id, extract(epoch FROM t.time), t.latitude, t.longitude, a.us_aqi,
                       extract(epoch FROM s.time), s.us_aqi, s.pm,
                       extract(epoch FROM greatest(t.time,
                           (SELECT max(time) FROM air WHERE device_id = d.device_id
                                AND ($3::timestamptz IS NULL OR time <= $3)),
                           (SELECT max(time) FROM sensor WHERE device_id = d.device_id
                                AND ($3::timestamptz IS NULL OR time <= $3))))
                FROM devices d
                LEFT JOIN LATERAL (SELECT time, latitude, longitude FROM track WHERE device_id = d.device_id
                                   AND ($3::timestamptz IS NULL OR time <= $3)
                                   ORDER BY time DESC LIMIT 1) t ON true
                LEFT JOIN LATERAL (SELECT us_aqi FROM air WHERE device_id = d.device_id AND us_aqi IS NOT NULL
                                   AND ($3::timestamptz IS NULL OR time <= $3)
                                   ORDER BY time DESC LIMIT 1) a ON true
                LEFT JOIN LATERAL (SELECT time, us_aqi, coalesce(corrected_pm2_5, pm2_5) AS pm FROM sensor
                                   WHERE device_id = d.device_id AND pm2_5 IS NOT NULL
                                   AND ($3::timestamptz IS NULL OR time <= $3)
                                   ORDER BY time DESC LIMIT 1) s ON true
                WHERE $1::text IS NULL OR d.device_id > $1
                ORDER BY d.device_id
                LIMIT $2
                """, [after, String(limit), notAfter.map(Self.timestamp)]
            ).compactMap { row in
                guard let device = row[0] else { return nil }
                var last = LastPosition(deviceID: device)
                last.time = Self.date(row[1])
                if let latitude = row[2].flatMap(Double.init), let longitude = row[3].flatMap(Double.init) {
                    last.coordinate = try? Coordinate(latitude: latitude, longitude: longitude)
                }
                last.modelAQI = row[4].flatMap { Int($0) }
                if let time = Self.date(row[5]) {
                    last.measured = (time, row[6].flatMap { Int($0) }, row[7].flatMap(Double.init))
                }
                last.newestRow = row.count > 8 ? Self.date(row[8]) : nil
                return last
            }
        }
    }

    /// Where the first page of `device`'s rows in `[since, until)` ends: nil when each kind
    /// has at most `rows` rows there; else a time after `since` before which each kind has
    /// at most `rows` (pages cut there share no row and always move on).
    public func pageEnd(device: String, since: Date, until: Date, rows: Int) throws(DatabaseError) -> Date? {
        let cut = try read { database throws(DatabaseError) in
            let each = ["track", "air", "sensor"].map { table in
                "(SELECT time FROM \(table) WHERE device_id = $1 AND time >= $2 AND time < $3 ORDER BY time "
                    + "OFFSET $4 LIMIT 1)"
            }
            return try database.execute(
                "SELECT extract(epoch FROM least(\(each.joined(separator: ", "))))",
                [device, UTCTime.iso8601(since), UTCTime.iso8601(until), String(rows)]
            ).first?.first ?? nil
        }
        guard let cut = Self.date(cut) else { return nil }
        return max(cut, since.addingTimeInterval(0.001))
    }

    /// Whether `device` has ever sent a row.
    public func knows(_ device: String) throws(DatabaseError) -> Bool { try version(of: device) != nil }

    /// What changes whenever a row of `device` is stored (the collector updates its
    /// `devices` row in the transaction that stores its rows), or nil for an unknown device.
    public func version(of device: String) throws(DatabaseError) -> String? {
        try read { database throws(DatabaseError) in
            try database.execute(
                "SELECT xmin::text || ' ' || extract(epoch FROM last_seen) FROM devices WHERE device_id = $1", [device]
            ).first?.first ?? nil
        }
    }

    /// `device`'s rows in `[since, until)` as `log export --format geojson` writes them: a
    /// LineString per segment (a lone point as a Point with its row), then each air and
    /// sensor row as a Point whose properties are the row as published.
    public func trackGeoJSON(device: String, since: Date, until: Date, decimals: Int?) throws(DatabaseError)
        -> Data
    {
        let window = [device, Self.timestamp(since), Self.timestamp(until)]
        let latitude = decimals.map { "round(latitude::numeric, \($0))::float8" } ?? "latitude"
        let longitude = decimals.map { "round(longitude::numeric, \($0))::float8" } ?? "longitude"
        let shown = "jsonb_build_object('latitude', \(latitude), 'longitude', \(longitude))"
        // On the coarse grid a lone point claims no better than half a cell, and no altitude.
        let lone =
            decimals == nil
            ? "payload"
            : "payload || \(shown) || jsonb_build_object('altitude_m', NULL::float8, 'accuracy_m', "
                + "greatest(coalesce(accuracy_m, 0), 555.975))"
        let point = decimals == nil ? "payload" : "payload || \(shown)"
        return try read { database throws(DatabaseError) in
            var out = GeoJSONBytes()
            out.append("{\"type\":\"FeatureCollection\",\"features\":[\n")
            let lones = try database.withResult(
                """
                SELECT incarnation, segment, extract(epoch FROM time), \(longitude), \(latitude),
                       \(decimals == nil ? "altitude_m" : "NULL"), id
                FROM track WHERE device_id = $1 AND time >= $2 AND time < $3 AND latitude IS NOT NULL
                ORDER BY time
                """, window
            ) { cells in out.track(cells) }
            if !lones.isEmpty {
                let keys = lones.map { ["incarnation": $0.incarnation, "id": $0.id] }
                let data = (try? JSONSerialization.data(withJSONObject: keys)) ?? Data("[]".utf8)
                var properties: [String: String] = [:]
                for row in try database.execute(
                    """
                    SELECT t.incarnation || ' ' || t.id, (\(lone))::text FROM track t
                    JOIN jsonb_to_recordset($2::jsonb) AS k(incarnation text, id text) USING (incarnation, id)
                    WHERE t.device_id = $1
                    """, [device, String(decoding: data, as: UTF8.self)])
                {
                    if let key = row[0], let text = row[1] { properties[key] = text }
                }
                out.fill(lones) { properties[$0.incarnation + " " + $0.id] ?? "{}" }
            }
            for table in ["air", "sensor"] {
                for row in try database.execute(
                    """
                    SELECT CASE WHEN latitude IS NULL THEN 'null' ELSE
                             '{"type":"Point","coordinates":[' || \(longitude) || ',' || \(latitude) || ']}' END,
                           (\(point))::text
                    FROM \(table) WHERE device_id = $1 AND time >= $2 AND time < $3 ORDER BY time
                    """, window)
                {
                    out.feature(
                        "{\"type\":\"Feature\",\"geometry\":\(row[0] ?? "null"),\"properties\":\(row[1] ?? "{}")}")
                }
            }
            out.append("\n]}\n")
            return out.data
        }
    }

    static func date(_ epoch: String?) -> Date? {
        epoch.flatMap(Double.init).map { Date(timeIntervalSince1970: $0) }
    }

    /// A time as PostgreSQL reads a timestamptz parameter.
    static func timestamp(_ date: Date) -> String { UTCTime.iso8601(date) }
}
