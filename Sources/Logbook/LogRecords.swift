import Foundation
import Geo

/// One logged position (a row of the `track` table).
///
/// Contract: `time` is UTC and says where it came from (`timeSource`: `gps` when the
/// receiver's time corrected this device's clock, `system` otherwise); `segment` groups
/// points logged without a gap; every measurement the receiver did not give is nil.
public struct TrackPoint: Sendable, Equatable {
    public var id: Int64 = 0
    public var time: Date
    public var timeSource: String
    public var coordinate: Coordinate
    public var altitude: Double?
    public var speed: Double?
    public var course: Double?
    public var accuracy: Double?
    public var mode: Int?
    public var satellites: Int?
    public var provider: String
    public var segment: Int64

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
    public enum Source: String, Sendable, CaseIterable {
        case live, cached, backfill, pending, unavailable
    }

    public var id: Int64 = 0
    public var hour: Date
    public var loggedAt: Date
    public var coordinate: Coordinate
    public var sentCoordinate: Coordinate
    public var place: String?
    public var values = AirValues()
    public var source: Source
    public var reason: String?
    public var segment: Int64

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
    public var usAQI: Int?
    public var category: String?
    public var dominantPollutant: String?
    /// µg/m³, by Open-Meteo variable name (`pm2_5`, `pm10`, `nitrogen_dioxide`,
    /// `sulphur_dioxide`, `ozone`, `carbon_monoxide`).
    public var pollutants: [String: Double] = [:]
    public var europeanAQI: Int?
    /// The strongest pollen group and level ("birch_pollen high"), nil outside Europe or season.
    public var pollen: String?

    public init() {}

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
