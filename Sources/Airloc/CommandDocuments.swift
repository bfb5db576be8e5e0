import Foundation
import Gazetteer
import Geo
import Location

/// The small JSON documents of the commands (docs/json-schema.md), beside the report's and
/// the search's: a program reading airloc's output decodes the same shapes.
///
/// `airloc locate --json`, schema `airloc.locate/1`.
public struct LocateJSON: Encodable {
    /// The document's schema.
    public var schema = "airloc.locate/1"
    /// Where the device is.
    public var location: LocationJSON
    /// The place it is in.
    public var place: PlaceJSON?
    /// Each provider tried.
    public var providers: [AttemptJSON]
    /// Providers left out, and why.
    public var warnings: [String]

    /// A `locate --json` document.
    public init(location: LocationJSON, place: PlaceJSON?, providers: [AttemptJSON], warnings: [String]) {
        (self.location, self.place, self.providers, self.warnings) = (location, place, providers, warnings)
    }

    /// The document of a location found at `now`, in `place`.
    public init(_ found: LocationSession.Location, place: NearestPlace?, at now: Date) {
        self.init(
            location: LocationJSON(
                fix: found.fix, provider: found.provider, authorizedAccuracy: found.accuracy, at: now),
            place: place.map { PlaceJSON($0) }, providers: found.attempts.map(AttemptJSON.init),
            warnings: found.warnings)
    }
}

/// One line of `airloc locate --watch`, schema `airloc.watch/1`.
public struct WatchEventJSON: Encodable {
    /// The document's schema.
    public var schema = "airloc.watch/1"
    /// "fix", "stale", "lost", "no_fix_yet", "disconnected" or "connected".
    public var event: String
    /// When it happened.
    public var time: String
    /// The provider followed.
    public var provider: String
    /// The position, with a fix.
    public var location: LocationJSON?
    /// The place, with a fix.
    public var place: PlaceJSON?
    /// Why, for the events without a fix.
    public var reason: String?
    /// When the provider is tried again, seconds.
    public var retryInS: Double?

    /// The line for a follow event; the place is the locality of its fix.
    public init(_ event: FollowEvent, accuracy: AccuracyAuthorization, gazetteer: Gazetteer) {
        self.event = event.kind.rawValue
        time = UTCTime.iso8601Seconds(event.time)
        provider = event.provider
        location = event.fix.map {
            LocationJSON(fix: $0, provider: event.provider, authorizedAccuracy: accuracy, at: event.time)
        }
        place = event.fix.flatMap { gazetteer.locality(for: $0.coordinate) }.map { PlaceJSON($0) }
        (reason, retryInS) = (event.reason, event.retryIn)
    }
}

/// `airloc use --json`, schema `airloc.use/1`.
public struct UseJSON: Encodable {
    /// What `use` did.
    public enum Outcome: String, Encodable, Sendable {
        case saved, shown, cleared, none
    }

    /// The document's schema.
    public var schema = "airloc.use/1"
    /// The place now chosen; null after --clear or when none is.
    public var place: PlaceJSON?
    /// What `use` did.
    public var action: Outcome

    /// The document of choosing `place` (nil: cleared).
    public init(place: Place?, action: Outcome) {
        self.place = place.map { PlaceJSON(NearestPlace(place: $0, from: $0.coordinate)) }
        self.action = action
    }
}

/// `airloc auth status --json`, schema `airloc.auth/1`.
public struct AuthStatusJSON: Encodable {
    /// The document's schema.
    public var schema = "airloc.auth/1"
    /// The authorization status.
    public var status: String
    /// "full" or "reduced".
    public var accuracy: String
    /// The administrator's policy mode.
    public var policy: String
    /// Whether runs without a terminal (scripts, cron, systemd, the logger) may sense.
    public var unattended: Bool

    /// The document of `machine` under `policy`.
    public init(_ machine: LocationAuthorization, policy: AuthorizationPolicy) {
        (status, accuracy, self.policy) = (machine.status.rawValue, machine.accuracy.rawValue, policy.mode.rawValue)
        unattended = machine.status == .authorizedAlways
    }
}

/// `airloc doctor --json`, schema `airloc.doctor/1`.
public struct DoctorJSON: Encodable {
    /// The document's schema.
    public var schema = "airloc.doctor/1"
    /// True when no check failed.
    public var ok: Bool
    /// Every check, in order.
    public var checks: [HealthCheck]
    /// What the exit status says when a check failed (null when all needed parts work).
    public var error: JSONError?

    /// The document of `checks`.
    public init(ok: Bool, checks: [HealthCheck], error: JSONError?) {
        (self.ok, self.checks, self.error) = (ok, checks, error)
    }
}

/// `airloc reverse --json`, schema `airloc.reverse/1`: the place nearest a coordinate,
/// and whether it is within reach (beyond it the answer names the nearest anyway).
public struct ReverseJSON: Encodable {
    /// The document's schema.
    public var schema = "airloc.reverse/1"
    /// The coordinate asked.
    public var query: Query
    /// The nearest place.
    public var place: PlaceJSON
    /// "3 km NE of Erding".
    public var description: String
    /// How far, kilometres.
    public var distanceKm: Double
    /// In which direction, degrees.
    public var bearingDeg: Double
    /// True when the place is within ``reach``.
    public var withinReach: Bool

    /// The coordinate asked.
    public struct Query: Encodable {
        /// Degrees.
        public var latitude: Double
        /// Degrees.
        public var longitude: Double
    }

    /// Metres from a populated place beyond which a coordinate is "nowhere near" one.
    public static let reach = 50_000.0

    /// The answer for `coordinate`.
    public init(_ nearest: NearestPlace, query coordinate: Coordinate) {
        let place = PlaceJSON(nearest)
        query = Query(latitude: coordinate.latitude, longitude: coordinate.longitude)
        self.place = place
        description = nearest.relativeDescription
        (distanceKm, bearingDeg, withinReach) = (place.distanceKm, place.bearingDeg, nearest.distance <= Self.reach)
    }
}
