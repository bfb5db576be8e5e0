import Airloc
import Arguments
import Configuration
import Gazetteer
import Location
import Platform
import Settings
import TerminalUI

/// The options every locating command shares (`--lat/--lon`, `--provider`, `--gpsd`,
/// `--timeout`), read into the settings, and the session that locates with them.
enum LocationOptions {
    static let specs: [OptionSpec] =
        CoordinateArguments.specs + [
            .provider,
            .gpsd,
            .timeout,
        ]

    /// The settings with the shared options applied (flags are the last layer).
    static func configure(_ context: CommandContext, command: String) throws(CLIError) -> Settings {
        let arguments = context.arguments
        var settings = context.configuration
        if let gpsd = arguments.value(.gpsd) {
            do { settings.gpsd = try ConfigurationFiles.parseGPSD(gpsd, origin: "--gpsd") } catch {
                throw .usage(error.message.replacingOccurrences(of: "--gpsd=", with: "--gpsd "), command: command)
            }
        }
        if let timeout = arguments.value(.timeout, as: Double.self) { settings.gpsdTimeout = timeout }
        if let provider = arguments.value(.provider, as: Settings.ProviderName.self) { settings.providers = [provider] }
        if let given = try CoordinateArguments.parse(arguments, command: command) {
            if arguments.value(.provider) != nil {
                throw .usage("--lat/--lon and --provider cannot be combined", command: command)
            }
            settings.givenCoordinate = (given, "--lat/--lon")
            settings.providers = [.manual]
        }
        return settings
    }

    /// The session for a command at this terminal (or not): asks on a terminal, never
    /// otherwise. A run without a person at a terminal (cron, systemd, a script fed by a
    /// pipe) is unattended, which, as background use on a phone, needs the "always" grant.
    static func session(_ context: CommandContext, settings: Settings, gazetteer: Gazetteer) -> LocationSession {
        LocationSession(
            settings: settings, gazetteer: gazetteer, prompter: TerminalPrompter(console: context.console),
            unattended: !context.console.isInteractive)
    }
}

extension CLIError {
    /// The command line's word for a session's failure: the exit status, and what to do.
    init(_ error: LocationSessionError) {
        switch error {
        case .notAuthorized(let refusal): self = Self.refused(refusal)
        case .noManualLocation: self = .config(LocationSessionError.noManualLocationReason)
        case .unknownPlace(let name, let origin):
            self = .config(
                (origin.map { "\($0): " } ?? "")
                    + "[location] place = \(name): no place of that name in the offline gazetteer "
                    + "(try `airloc reverse`-style coordinates with latitude/longitude, or 'Name, CC')")
        case .ambiguousPlace(let name, let places, let origin):
            let list = places.map { "  \($0.displayName)" }.joined(separator: "\n")
            self = .config(
                (origin.map { "\($0): " } ?? "")
                    + "[location] place = \(name) names several places; say which (e.g. '\(name), "
                    + "\(places[0].admin1.isEmpty ? places[0].countryCode : places[0].admin1)') or use latitude/longitude:\n"
                    + list)
        case .noLocation(let failure, let retryable):
            let noFix = failure.errors.values.contains {
                if case .noFix? = $0 as? GPSDError { return true }
                return false
            }
            self = CLIError(
                code: retryable ? .tempFail : .unavailable,
                message: failure.description + (noFix ? "; or give coordinates with --lat/--lon" : ""))
        case .cannotSaveAuthorization(let error):
            self = CLIError(code: .ioError, message: "cannot save the authorization: \(error)")
        case .cancelled:
            self = CLIError(code: .software, message: "locating was cancelled")
        }
    }

    static func refused(_ refusal: LocationAuthorization.Refusal) -> CLIError {
        switch refusal {
        case .notDetermined:
            return CLIError(
                code: .noPermission,
                message: "airloc is not yet allowed to use this device's location, and cannot ask without a terminal. "
                    + "Allow it with `airloc auth grant --always` (runs without a terminal: scripts, cron, the logger; "
                    + "add --reduced for city-level accuracy), or pass coordinates with --lat/--lon")
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
                message: "this run has no terminal (a script, cron, systemd, a pipe): unattended use needs the "
                    + "'always' grant, and only use at a terminal was allowed. Run `airloc auth grant --always`, "
                    + "or pass coordinates with --lat/--lon")
        }
    }
}
