import Foundation
import Geo

/// One point of a device's track as the fleet page's map draws it, with the US AQI in
/// force there and then.
public struct FleetTrackPoint: Sendable, Equatable {
    /// When.
    public var time: Date
    /// Where.
    public var coordinate: Coordinate
    /// Its run: the device's logbook incarnation and segment.
    public var segment: String
    /// The device's latest model hour at or before `time`, within ``FleetDatabase/modelFor``.
    public var model: Reading?
    /// The device's latest particulate reading at or before `time`, within `measuredFor`.
    public var measured: Reading?

    /// An index and when it was said.
    public struct Reading: Sendable, Equatable {
        /// When.
        public var time: Date
        /// The US AQI.
        public var aqi: Int

        /// A reading.
        public init(time: Date, aqi: Int) { (self.time, self.aqi) = (time, aqi) }
    }

    /// A point.
    public init(time: Date, coordinate: Coordinate, segment: String, model: Reading? = nil, measured: Reading? = nil) {
        (self.time, self.coordinate, self.segment) = (time, coordinate, segment)
        (self.model, self.measured) = (model, measured)
    }
}

extension FleetDatabase {
    /// How long a model hour colours the track after it.
    public static let modelFor: TimeInterval = 7200

    /// `device`'s track in `[since, until)`, at most `limit` points (every k-th, and each
    /// run's last: a year of one-second fixes stays a light page), each with the model hour
    /// and the particulate reading in force at it (`measuredFor` seconds at most).
    ///
    /// Why in one query: the readings are looked up per drawn point through the
    /// `(device_id, time)` indexes, so what the page holds is at most `limit` rows however
    /// long the window (reading a year's readings into memory to colour 5,000 points took
    /// 230 MB a request).
    public func trackPoints(
        device: String, since: Date, until: Date, measuredFor: TimeInterval, limit: Int = 5_000
    ) throws(DatabaseError) -> [FleetTrackPoint] {
        try read { database throws(DatabaseError) in
            try database.execute(
                """
                SELECT extract(epoch FROM p.time), p.latitude, p.longitude, p.run,
                       extract(epoch FROM m.time), m.us_aqi, extract(epoch FROM s.time), s.us_aqi
                FROM (
                    SELECT time, latitude, longitude, run FROM (
                        SELECT time, latitude, longitude, incarnation || '/' || segment AS run,
                               row_number() OVER w AS rank, count(*) OVER () AS total,
                               lead(incarnation || '/' || segment) OVER w AS next
                        FROM track WHERE device_id = $1 AND time >= $2 AND time < $3 AND latitude IS NOT NULL
                        WINDOW w AS (ORDER BY time)) t
                    WHERE (rank - 1) % greatest(1, ceil(total / $4::float8)::bigint) = 0 OR next IS DISTINCT FROM run
                ) p
                LEFT JOIN LATERAL (
                    SELECT time, us_aqi FROM air
                    WHERE device_id = $1 AND time <= p.time AND time > p.time - make_interval(secs => $5::float8)
                      AND us_aqi IS NOT NULL
                    ORDER BY time DESC LIMIT 1) m ON true
                LEFT JOIN LATERAL (
                    SELECT time, us_aqi FROM sensor
                    WHERE device_id = $1 AND time <= p.time AND time >= p.time - make_interval(secs => $6::float8)
                      AND us_aqi IS NOT NULL AND pm2_5 IS NOT NULL
                    ORDER BY time DESC LIMIT 1) s ON true
                ORDER BY p.time
                """,
                [
                    device, Self.timestamp(since), Self.timestamp(until), String(max(1, limit)),
                    String(Self.modelFor), String(measuredFor),
                ]
            ).compactMap { row in
                guard let time = Self.date(row[0]), let latitude = row[1].flatMap(Double.init),
                    let longitude = row[2].flatMap(Double.init),
                    let coordinate = try? Coordinate(latitude: latitude, longitude: longitude)
                else { return nil }
                func reading(_ at: Int) -> FleetTrackPoint.Reading? {
                    guard let time = Self.date(row[at]), let aqi = row[at + 1].flatMap({ Int($0) }) else { return nil }
                    return .init(time: time, aqi: aqi)
                }
                return FleetTrackPoint(
                    time: time, coordinate: coordinate, segment: row[3] ?? "", model: reading(4), measured: reading(6))
            }
        }
    }
}
