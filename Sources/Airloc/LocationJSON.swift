import Foundation
import Gazetteer
import Geo
import Location

/// The `location` object shared by `airloc now --json`, `airloc locate --json` and the
/// `locate --watch` lines (docs/json-schema.md): where, from what, how precise, how old.
///
/// Contract: SI units (metres, metres per second, seconds); `accuracy_source` says what
/// the radius is ("eph", "IP address (city level)", "configured"); `age_s` is measured
/// by this device's clock, because a receiver's clock can be wrong.
public struct LocationJSON: Encodable {
    /// Degrees north.
    public var latitude: Double
    /// Degrees east.
    public var longitude: Double
    /// "gps", "ip" or "manual".
    public var source: String
    /// The provider that gave it ("gpsd").
    public var provider: String
    /// The error radius, metres.
    public var accuracyM: Double?
    /// What the accuracy figure is ("eph", "epx/epy", "city level", "configured").
    public var accuracySource: String?
    /// "full" or "reduced".
    public var authorizedAccuracy: AccuracyAuthorization
    /// When the fix was taken.
    public var time: String?
    /// Its age, seconds.
    public var ageS: Double?
    /// "2d" or "3d".
    public var mode: String?
    /// Height above the ellipsoid, metres.
    public var altitudeHaeM: Double?
    /// Height above mean sea level, metres.
    public var altitudeMslM: Double?
    /// Speed, m/s.
    public var speedMS: Double?
    /// Course over ground, degrees.
    public var trackDeg: Double?
    /// Satellites used.
    public var satellitesUsed: Int?

    /// The location of `fix` from `provider`, its age at `now`.
    public init(fix: Fix, provider: String, authorizedAccuracy: AccuracyAuthorization, at now: Date) {
        latitude = fix.coordinate.latitude
        longitude = fix.coordinate.longitude
        source = fix.source.rawValue
        self.provider = provider
        accuracyM = fix.horizontalAccuracy.map { ($0 * 10).rounded() / 10 }
        accuracySource = fix.accuracySource
        self.authorizedAccuracy = authorizedAccuracy
        time = fix.time.map(UTCTime.iso8601Seconds)
        ageS = fix.age(at: now).map { ($0 * 10).rounded() / 10 }
        mode = fix.mode.map { $0 == .threeD ? "3d" : $0 == .twoD ? "2d" : "none" }
        altitudeHaeM = fix.altitudeHAE
        altitudeMslM = fix.altitudeMSL
        speedMS = fix.speed
        trackDeg = fix.track
        satellitesUsed = fix.satellitesUsed
    }
}

/// What one provider of the chain did: `answered`, `failed`, `skipped` (not started:
/// not authorized or not configured) or `not_tried` (an earlier one answered).
public struct AttemptJSON: Encodable {
    /// The provider tried.
    public var provider: String
    /// "answered", "failed", "skipped" or "not_tried".
    public var outcome: String
    /// Why, when it gave no fix.
    public var reason: String?
    /// How long it took.
    public var seconds: Double?

    /// The attempt as the document shows it.
    public init(_ attempt: LocationChain.Attempt) {
        provider = attempt.provider
        seconds = attempt.seconds.map { ($0 * 1000).rounded() / 1000 }
        switch attempt.outcome {
        case .answered: outcome = "answered"
        case .failed(let text):
            outcome = "failed"
            reason = text
        case .skipped(let text):
            outcome = "skipped"
            reason = text
        case .notTried: outcome = "not_tried"
        }
    }
}

/// The nearest populated place, as every JSON document gives it.
public struct PlaceJSON: Encodable {
    /// GeoNames' id.
    public var id: Int
    /// The place's name.
    public var name: String
    /// Its admin-1 region.
    public var admin1: String
    /// Its country.
    public var country: String
    /// ISO 3166 alpha-2.
    public var countryCode: String
    /// "Berlin, Berlin, Germany".
    public var displayName: String
    /// From the position to the place, km.
    public var distanceKm: Double
    /// From the position to the place, degrees.
    public var bearingDeg: Double
    /// Its IANA time zone.
    public var timezone: String
    /// Its population.
    public var population: Int
    /// GeoNames' feature code.
    public var featureCode: String
    /// Degrees north.
    public var latitude: Double
    /// Degrees east.
    public var longitude: Double
    /// "3.2 km NE of Erding".
    public var description: String
    /// The time zone's offset from UTC now ("+01:00") and the local time there.
    public var utcOffset: String?
    /// The time there now, ISO 8601 with its offset.
    public var localTime: String?
}

extension PlaceJSON {
    /// The place of `nearest`, its local time at `date`.
    public init(_ nearest: NearestPlace, at date: Date = Date()) {
        let p = nearest.place
        let local = LocalTime(timezone: p.timezone, at: date)
        self.init(
            id: p.id, name: p.name, admin1: p.admin1, country: p.country, countryCode: p.countryCode,
            displayName: p.displayName, distanceKm: (nearest.distance / 10).rounded() / 100,
            bearingDeg: nearest.bearing.rounded(), timezone: p.timezone, population: p.population,
            featureCode: p.featureCode, latitude: p.coordinate.latitude, longitude: p.coordinate.longitude,
            description: nearest.relativeDescription, utcOffset: local?.offset, localTime: local?.localDateTime)
    }
}
