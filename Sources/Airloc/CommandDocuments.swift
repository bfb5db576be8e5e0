import Foundation
import Gazetteer
import Geo
import Location

/// The small JSON documents of the commands (docs/json-schema.md), beside the report's and
/// the search's: a program reading airloc's output decodes the same shapes.
///
/// `airloc locate --json`, schema `airloc.locate/1`.
public struct LocateJSON: Encodable {
    public var schema = "airloc.locate/1"
    public var location: LocationJSON
    public var place: PlaceJSON?
    public var providers: [AttemptJSON]
    public var warnings: [String]

    public init(location: LocationJSON, place: PlaceJSON?, providers: [AttemptJSON], warnings: [String]) {
        (self.location, self.place, self.providers, self.warnings) = (location, place, providers, warnings)
    }
}

/// One line of `airloc locate --watch`, schema `airloc.watch/1`.
public struct WatchEventJSON: Encodable {
    public var schema = "airloc.watch/1"
    public var event: String
    public var time: String
    public var provider: String
    public var location: LocationJSON?
    public var place: PlaceJSON?
    public var reason: String?
    public var retryInS: Double?

    /// The line for a follow event; the place is the locality of its fix.
    public init(_ event: FollowEvent, accuracy: AccuracyAuthorization, gazetteer: Gazetteer) {
        self.event = event.kind.rawValue
        time = UTCTime.iso8601Seconds(event.time)
        provider = event.provider
        location = event.fix.map {
            LocationJSON(fix: $0, provider: event.provider, authorizedAccuracy: accuracy.rawValue, at: event.time)
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

    public var schema = "airloc.use/1"
    /// The place now chosen; null after --clear or when none is.
    public var place: PlaceJSON?
    public var action: Outcome

    public init(place: Place?, action: Outcome) {
        self.place = place.map { PlaceJSON(NearestPlace(place: $0, from: $0.coordinate)) }
        self.action = action
    }
}

/// `airloc auth status --json`, schema `airloc.auth/1`.
public struct AuthStatusJSON: Encodable {
    public var schema = "airloc.auth/1"
    public var status: String
    public var accuracy: String
    public var policy: String
    /// Whether runs without a terminal (scripts, cron, systemd, the logger) may sense.
    public var unattended: Bool

    public init(_ machine: LocationAuthorization, policy: AuthorizationPolicy) {
        (status, accuracy, self.policy) = (machine.status.rawValue, machine.accuracy.rawValue, policy.mode.rawValue)
        unattended = machine.status == .authorizedAlways
    }
}

/// `airloc doctor --json`, schema `airloc.doctor/1`.
public struct DoctorJSON: Encodable {
    public var schema = "airloc.doctor/1"
    public var ok: Bool
    public var checks: [HealthCheck]
    /// What the exit status says when a check failed (null when all needed parts work).
    public var error: JSONError?

    public init(ok: Bool, checks: [HealthCheck], error: JSONError?) {
        (self.ok, self.checks, self.error) = (ok, checks, error)
    }
}
