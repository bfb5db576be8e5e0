import Geo
import Location
import Platform

/// Why a ``LocationSession`` has no location to give.
///
/// Contract: each case says what is wrong in the library's terms; what to do about it
/// (which command to run, which exit status) is the caller's business — the command line
/// adds its advice, a daemon logs the description.
public enum LocationSessionError: Error, Sendable, CustomStringConvertible {
    /// Sensing was needed and not allowed.
    case notAuthorized(LocationAuthorization.Refusal)
    /// `manual` was the only way left and no manual location is configured.
    case noManualLocation
    /// `[location] place` names no place in the offline data; `origin` is where it was
    /// set ("airloc.conf:3").
    case unknownPlace(String, origin: String?)
    /// `[location] place` names several places of similar size (Springfield).
    case ambiguousPlace(String, [Place], origin: String?)
    /// Every provider was tried and none answered; `retryable` when waiting may help
    /// (no fix yet, gpsd restarting, a rate limit) rather than something needing a fix
    /// (gpsd not running).
    case noLocation(LocationChain.ChainFailure, retryable: Bool)
    /// The person's answer could not be kept.
    case cannotSaveAuthorization(FileError)
    /// The task asking was cancelled.
    case cancelled

    /// What went wrong, as facts (the program adds the advice).
    public var description: String {
        switch self {
        case .notAuthorized(.notDetermined):
            return "airloc is not yet allowed to use this device's location, and cannot ask"
        case .notAuthorized(.denied): return "use of this device's location was denied"
        case .notAuthorized(.restricted): return "location sensing is disabled by the administrator's policy"
        case .notAuthorized(.needsAlways):
            return "unattended use needs permission to use the location always; only use while interactive was allowed"
        case .noManualLocation: return "no manual location is configured"
        case .unknownPlace(let name, let origin):
            return (origin.map { "\($0): " } ?? "")
                + "[location] place = \(name): no place of that name in the offline data"
        case .ambiguousPlace(let name, let places, let origin):
            return (origin.map { "\($0): " } ?? "") + "[location] place = \(name) names several places: "
                + places.map(\.displayName).joined(separator: "; ")
        case .noLocation(let failure, _): return failure.description
        case .cannotSaveAuthorization(let error): return "cannot save the authorization: \(error)"
        case .cancelled: return "locating was cancelled"
        }
    }

    /// True when the same request may succeed later without any change by the user.
    public var isRetryable: Bool {
        if case .noLocation(_, let retryable) = self { return retryable }
        return false
    }
}

extension LocationSessionError {
    /// What is missing when `manual` is all that is left: the chain's attempt list and
    /// the command line's error both say it in these words.
    public static let noManualLocationReason =
        "no manual location ('airloc use PLACE', or [location] latitude/longitude or place)"

    /// True when sensing was not allowed (as opposed to not possible).
    public var isAuthorization: Bool {
        if case .notAuthorized = self { return true }
        return false
    }
}
