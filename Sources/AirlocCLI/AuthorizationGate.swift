import FileSystem
import Foundation
import Geo
import Location

/// Applies the authorization state machine for a command that wants to sense the
/// device's location: loads the decision, asks on a terminal if needed, persists the
/// answer, and refuses with EX_NOPERM and exact instructions otherwise.
struct AuthorizationGate {
    var configuration: Configuration
    var environment: [String: String]
    var console: Console

    var store: AuthorizationStore {
        AuthorizationStore(stateDirectory: XDGDirectories(environment: environment).state)
    }

    func machine() -> LocationAuthorization {
        LocationAuthorization(stored: store.load(), policy: configuration.policy)
    }

    /// Returns the accuracy the user allowed, or throws the refusal.
    func authorize(purpose: String, background: Bool = false) throws(CLIError) -> AccuracyAuthorization {
        var machine = machine()
        var action = machine.requestSensing(interactive: console.isInteractive, background: background)
        if action == .prompt {
            let answer = ask(purpose: purpose)
            if case .persist(let decision) = machine.userAnswered(answer) { try save(decision) }
            action = machine.requestSensing(interactive: false, background: background)
        }
        switch action {
        case .proceed(let accuracy): return accuracy
        case .refuse(let refusal): throw Self.error(for: refusal)
        case .prompt, .persist, .clear: throw CLIError(code: .software, message: "authorization flow out of order")
        }
    }

    func save(_ decision: AuthorizationDecision) throws(CLIError) {
        do { try store.save(decision) } catch {
            throw CLIError(code: .ioError, message: "cannot save the authorization to \(store.file.path): \(error)")
        }
    }

    private func ask(purpose: String) -> LocationAuthorization.Answer {
        console.err(
            """
            airloc wants to use this device's location (\(purpose)).
            It stays on this device; only a rounded coordinate is sent to the air-quality service.
              y = allow while using airloc    a = always (also unattended logging)
              r = allow, approximate only (city level)    n = don't allow
            Allow? [y/a/r/N] 
            """)
        let reply = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        switch reply {
        case "y", "yes": return .allowWhenInUse(.full)
        case "a", "always": return .allowAlways(.full)
        case "r": return .allowWhenInUse(.reduced)
        default: return .deny
        }
    }

    static func error(for refusal: LocationAuthorization.Refusal) -> CLIError {
        switch refusal {
        case .notDetermined:
            return CLIError(
                code: .noPermission,
                message: "airloc is not yet allowed to use this device's location, and cannot ask without a terminal. "
                    + "Allow it once with `airloc auth grant` (add --reduced for city-level accuracy, --always for "
                    + "unattended use), or pass coordinates with --lat/--lon")
        case .denied:
            return CLIError(
                code: .noPermission,
                message: "use of this device's location was denied (`airloc auth deny`). "
                    + "Run `airloc auth grant` to allow it, or pass coordinates with --lat/--lon")
        case .restricted:
            return CLIError(
                code: .noPermission,
                message: "location sensing is disabled by the administrator "
                    + "(/etc/airloc/airloc.conf: [authorization] policy = forbid); pass coordinates with --lat/--lon")
        case .needsAlways:
            return CLIError(
                code: .noPermission,
                message: "unattended use needs `airloc auth grant --always`; only use while interactive was allowed")
        }
    }
}

extension Fix {
    /// The fix as `accuracy` allows: reduced blurs sensed fixes; coordinates the user
    /// gave (manual) are theirs and stay as given.
    func limited(to accuracy: AccuracyAuthorization) -> Fix {
        accuracy == .reduced && source != .manual ? reduced() : self
    }

    /// The fix as a reduced-accuracy authorization allows: snapped to a 0.05° grid
    /// (≈ 5 km; stable, so repeated fixes cannot be averaged back to the true point),
    /// with an accuracy radius of at least 5 km.
    func reduced() -> Fix {
        var copy = self
        copy.coordinate = coordinate.rounded(toDegrees: 0.05)
        copy.horizontalAccuracy = max(horizontalAccuracy ?? 0, 5000)
        copy.accuracySource = "reduced to city level"
        copy.altitudeHAE = nil
        copy.altitudeMSL = nil
        copy.speed = nil
        copy.track = nil
        return copy
    }
}
