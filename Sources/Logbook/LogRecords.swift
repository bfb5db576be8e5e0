import Foundation
import Geo

/// One logged position (a row of the `track` table).
///
/// Contract: `time` is UTC and says where it came from (`timeSource`: `gps` when the
/// receiver's time corrected this device's clock, `system` otherwise); `segment` groups
/// points logged without a gap; every measurement the receiver did not give is nil.
public struct TrackPoint: Sendable, Equatable {
    /// The row's number (`t42` is 42); 0 before it is written.
    public var id: Int64 = 0
    /// When, UTC.
    public var time: Date
    /// "gps" or "system".
    public var timeSource: String
    /// Where.
    public var coordinate: Coordinate
    /// Metres above mean sea level (or the ellipsoid when the receiver gave only that).
    public var altitude: Double?
    /// m/s.
    public var speed: Double?
    /// Degrees from north.
    public var course: Double?
    /// Error radius, metres.
    public var accuracy: Double?
    /// gpsd's mode (2: 2D, 3: 3D).
    public var mode: Int?
    /// Satellites used.
    public var satellites: Int?
    /// The provider that gave the fix.
    public var provider: String
    /// The segment it belongs to.
    public var segment: Int64

    /// The point of `fix`, stamped `time`.
    public init(
        time: Date, timeSource: String = "system", fix: Fix, provider: String, segment: Int64
    ) {
        self.time = time
        self.timeSource = timeSource
        coordinate = fix.coordinate
        altitude = fix.altitudeMSL ?? fix.altitudeHAE
        speed = fix.speed
        course = fix.track
        accuracy = fix.horizontalAccuracy
        mode = fix.mode.map(\.rawValue)
        satellites = fix.satellitesUsed
        self.provider = provider
        self.segment = segment
    }
}

/// One air reading (a row of the `air` table): the value of one hour at one place, or
/// the promise to fetch it later.
///
/// Contract: `hour` is the start (UTC) of the data's hour. `source` says what the values
/// are: `live` (fetched then), `cached` (a cached answer of that hour), `backfill` (fetched
/// later from the service's history), `pending` (not known yet: the values are nil) or
/// `unavailable` (the service has no data for that hour: `reason` says why).
/// `sentCoordinate` is what was sent to the service (rounded as the user configured);
/// back-fill asks for exactly that.
public struct AirRecord: Sendable, Equatable {
    /// What the values are.
    public enum Source: String, Sendable, CaseIterable {
        case live, cached, backfill, pending, unavailable
    }

    /// The row's number (`a7` is 7); 0 before it is written.
    public var id: Int64 = 0
    /// The data's hour (its start, UTC).
    public var hour: Date
    /// When it was logged.
    public var loggedAt: Date
    /// Where the device was.
    public var coordinate: Coordinate
    /// What was sent to the service (rounded).
    public var sentCoordinate: Coordinate
    /// The place's name.
    public var place: String?
    /// The values (none while pending).
    public var values = AirValues()
    /// Live, cached, back-filled, pending or unavailable.
    public var source: Source
    /// Why it is pending or unavailable.
    public var reason: String?
    /// The segment it was logged in.
    public var segment: Int64

    /// A reading.
    public init(
        hour: Date, loggedAt: Date, coordinate: Coordinate, sentCoordinate: Coordinate, place: String?,
        values: AirValues = AirValues(), source: Source, reason: String? = nil, segment: Int64
    ) {
        self.hour = hour
        self.loggedAt = loggedAt
        self.coordinate = coordinate
        self.sentCoordinate = sentCoordinate
        self.place = place
        self.values = values
        self.source = source
        self.reason = reason
        self.segment = segment
    }
}

/// The numbers of one air reading (all nil for a pending hour).
public struct AirValues: Sendable, Equatable {
    /// The US AQI.
    public var usAQI: Int?
    /// Its EPA category's key.
    public var category: String?
    /// The pollutant that sets it.
    public var dominantPollutant: String?
    /// µg/m³, by Open-Meteo variable name (`pm2_5`, `pm10`, `nitrogen_dioxide`,
    /// `sulphur_dioxide`, `ozone`, `carbon_monoxide`).
    public var pollutants: [String: Double] = [:]
    /// The European AQI.
    public var europeanAQI: Int?
    /// The strongest pollen group and level ("birch_pollen high"), nil outside Europe or season.
    public var pollen: String?

    /// No values.
    public init() {}

    /// The pollutants kept, by Open-Meteo's names (``AirField/pollutants``' order).
    public static let pollutantNames = [
        "pm2_5", "pm10", "nitrogen_dioxide", "sulphur_dioxide", "ozone", "carbon_monoxide",
    ]
}

extension Date {
    /// The start of this instant's UTC hour.
    public var hourStart: Date { Date(timeIntervalSince1970: (timeIntervalSince1970 / 3600).rounded(.down) * 3600) }

    /// Milliseconds since 1970, as the logbook stores times.
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
    init(milliseconds: Int64) { self.init(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
