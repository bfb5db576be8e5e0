import FleetStore
import Foundation

/// Why the collector cannot store rows now, and since when: what it says of a fault and
/// what its health signals show, as a pure rule.
///
/// Contract:
/// - A fault is said once when it begins, once when its kind changes (another SQLSTATE, or
///   a connection that fails where a statement did), and once when it ends — never once per
///   retry, whatever the back-off.
/// - Its kind is `connect` for a connection that cannot be made, else the SQLSTATE of the
///   statement the server refused (`53100` disk full, `25006` read only, `42501` no
///   privilege); ``label`` names it for `/metrics`.
struct StoreFault: Sendable {
    /// The fault now (nil: rows are stored).
    private(set) var current: (kind: String, reason: String, since: ContinuousClock.Instant)?

    /// The kind of `error`.
    static func kind(_ error: DatabaseError) -> String {
        switch error {
        case .command(let state, _): return state
        case .connect, .library, .newerSchema: return "connect"
        }
    }

    /// A name for a fault's kind that a dashboard shows.
    static func label(_ kind: String) -> String {
        switch kind {
        case "connect": return "unreachable"
        case "53100": return "disk_full"
        case "25006": return "read_only"
        case "42501": return "permission"
        case "53200": return "out_of_memory"
        case "53300": return "too_many_connections"
        default:
            if kind.hasPrefix("08") || kind.hasPrefix("57P") { return "connection_lost" }
            if kind.hasPrefix("53") { return "resources" }
            return "other"
        }
    }

    /// `error` kept rows from being stored at `now`: the line to say (nil: this kind of
    /// fault was said already), and whether it is a new fault.
    mutating func happened(_ error: DatabaseError, retryIn pause: Duration, at now: ContinuousClock.Instant)
        -> String?
    {
        let kind = Self.kind(error)
        let reason = error.description
        guard let fault = current else {
            current = (kind, reason, now)
            return "cannot store rows: \(reason); trying again in \(Self.words(pause)), then less often "
                + "(nothing is acknowledged meanwhile)"
        }
        current = (kind, reason, fault.since)
        guard fault.kind != kind else { return nil }
        return "cannot store rows, now: \(reason)"
    }

    /// Rows are stored again: the line to say (nil: there was no fault).
    mutating func ended(at now: ContinuousClock.Instant) -> String? {
        guard let fault = current else { return nil }
        current = nil
        return "storing again after \(Self.words(now - fault.since)) (\(fault.reason))"
    }

    /// `5 s`, `3 min 20 s`, `2 h 5 min`.
    static func words(_ duration: Duration) -> String {
        let seconds = max(0, Int(duration.components.seconds))
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return "\(seconds / 60) min" + (seconds % 60 == 0 ? "" : " \(seconds % 60) s") }
        return "\(seconds / 3600) h" + (seconds % 3600 / 60 == 0 ? "" : " \(seconds % 3600 / 60) min")
    }
}
