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
    public var latitude: Double
    public var longitude: Double
    public var source: String
    public var provider: String
    public var accuracyM: Double?
    public var accuracySource: String?
    public var authorizedAccuracy: String
    public var time: String?
    public var ageS: Double?
    public var mode: String?
    public var altitudeHaeM: Double?
    public var altitudeMslM: Double?
    public var speedMS: Double?
    public var trackDeg: Double?
    public var satellitesUsed: Int?

    public init(fix: Fix, provider: String, authorizedAccuracy: String, at now: Date) {
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
    public var provider: String
    public var outcome: String
    public var reason: String?
    public var seconds: Double?

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
    public var id: Int
    public var name: String
    public var admin1: String
    public var country: String
    public var countryCode: String
    public var displayName: String
    public var distanceKm: Double
    public var bearingDeg: Double
    public var timezone: String
    public var population: Int
    public var featureCode: String
    public var latitude: Double
    public var longitude: Double
    /// "3.2 km NE of Erding".
    public var description: String
    /// The time zone's offset from UTC now ("+01:00") and the local time there.
    public var utcOffset: String?
    public var localTime: String?
}

extension PlaceJSON {
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
