import Foundation
import Gazetteer
import Geo
import Location

/// Turns the configuration and a command's location options into a provider chain, runs
/// it under the authorization rules, and explains the outcome.
///
/// Contract:
/// - `--lat/--lon` means exactly those coordinates: nothing is sensed.
/// - `--provider` (or `[location] providers`) sets the order. IP geolocation is used only
///   when the user listed it there, because it tells a third party the device's address.
/// - Sensing providers (gpsd, ip) start only after ``AuthorizationGate`` allowed them;
///   the manual provider never needs authorization. If nothing answers and sensing was
///   refused, the refusal (EX_NOPERM, with how to grant) is the error.
/// - Reduced accuracy snaps every sensed fix to the stable city-level grid.
struct LocationResolver {
    var context: CommandContext
    var configuration: Configuration
    var gazetteer: Gazetteer

    /// What the resolver found.
    struct Resolution {
        var fix: Fix
        var provider: String
        var attempts: [LocationChain.Attempt]
        var accuracy: AccuracyAuthorization
        /// Notes for stderr (a provider skipped for lack of authorization...).
        var warnings: [String]
    }

    /// The options every locating command shares, for their specs.
    static let options: [OptionSpec] = [
        .value("lat", "DEG", "use this latitude instead of sensing (-90...90)"),
        .value("lon", "DEG", "use this longitude instead of sensing (-180...180)"),
        .value("provider", "NAME", "ask only this provider: gpsd, ip or manual (default: [location] providers)"),
        .value("gpsd", "HOST:PORT", "gpsd to ask (default localhost:2947; also AIRLOC_GPSD)"),
        .value("timeout", "S", "seconds to wait for a first GPS fix (default 10, [gpsd] timeout)"),
    ]

    /// Reads the shared options into the configuration.
    static func configure(_ context: CommandContext, command: String) throws(CLIError) -> Configuration {
        let arguments = context.arguments
        var configuration = context.configuration
        if let gpsd = arguments.value("gpsd") {
            do { configuration.gpsd = try Configuration.parseGPSD(gpsd, origin: "--gpsd") } catch {
                throw .usage(error.message.replacingOccurrences(of: "--gpsd=", with: "--gpsd "), command: command)
            }
        }
        if let text = arguments.value("timeout") {
            guard let value = Double(text), value.isFinite, (0.1...3600).contains(value) else {
                throw .usage("invalid --timeout '\(text)': expected seconds between 0.1 and 3600", command: command)
            }
            configuration.gpsdTimeout = value
        }
        if let text = arguments.value("provider") {
            guard let name = Configuration.ProviderName(rawValue: text) else {
                let hint = suggestion(for: text, among: Configuration.ProviderName.allCases.map(\.rawValue))
                throw .usage(
                    "unknown provider '\(text)': expected gpsd, ip or manual"
                        + (hint.map { " (did you mean '\($0)'?)" } ?? ""), command: command)
            }
            configuration.providers = [name]
        }
        if let manual = try CoordinateArguments.parse(
            latitude: arguments.value("lat"), longitude: arguments.value("lon"), command: command)
        {
            if arguments.value("provider") != nil {
                throw .usage("--lat/--lon and --provider cannot be combined", command: command)
            }
            configuration.manualLatitude = manual.latitude
            configuration.manualLongitude = manual.longitude
            configuration.manualPlace = nil
            configuration.providers = [.manual]
        }
        return configuration
    }

    /// The manual location, if one is configured; a `place` that is not in the gazetteer
    /// is a configuration error (a typo must not quietly move the user elsewhere).
    func manualProvider() throws(CLIError) -> ManualProvider? {
        // The user's latest choice beats the configuration files; --lat/--lon beat both.
        if context.arguments.value("lat") == nil, let chosen = configuration.chosenPlace {
            return ManualProvider(coordinate: chosen.coordinate, origin: "chosen place \(chosen.displayName)")
        }
        if let latitude = configuration.manualLatitude, let longitude = configuration.manualLongitude,
            let coordinate = try? Coordinate(latitude: latitude, longitude: longitude)
        {
            let origin = context.arguments.value("lat") != nil ? "--lat/--lon" : "configured"
            return ManualProvider(coordinate: coordinate, origin: origin)
        }
        if let name = configuration.manualPlace {
            guard let place = gazetteer.place(named: name) else {
                throw .config(
                    "[location] place = \(name): no place of that name in the offline gazetteer "
                        + "(try `airloc reverse`-style coordinates with latitude/longitude, or 'Name, CC')")
            }
            return ManualProvider(coordinate: place.coordinate, origin: "place \(place.displayName)")
        }
        return nil
    }

    func chain() throws(CLIError) -> LocationChain {
        var links: [LocationChain.Link] = []
        for name in configuration.providers {
            switch name {
            case .gpsd:
                let provider = GPSDProvider(options: configuration.gpsd, timing: configuration.gpsdTiming)
                links.append(.init(provider, deadline: .milliseconds(Int(configuration.gpsdTimeout * 1000))))
            case .ip:
                let provider = IPLocationProvider(service: configuration.ipService, baseURL: configuration.ipURL)
                links.append(.init(provider, deadline: .milliseconds(Int(configuration.serviceTimeout * 1000))))
            case .manual:
                let provider: any LocationProvider = try manualProvider() ?? UnconfiguredManualProvider()
                links.append(.init(provider, deadline: .seconds(1)))
            }
        }
        return LocationChain(links)
    }

    /// Runs the chain. `background` is true for unattended use (needs `authorizedAlways`).
    func resolve(background: Bool = false) async throws(CLIError) -> Resolution {
        let chain = try chain()
        let purpose = sensingPurpose(chain.links)
        var decision: Result<AccuracyAuthorization, CLIError>?
        let answer: LocationChain.Answer
        do {
            answer = try await chain.locate { provider in
                if provider is UnconfiguredManualProvider { return UnconfiguredManualProvider.reason }
                guard provider.senses else { return nil }
                if decision == nil {
                    do {
                        decision = .success(try authorize(purpose: purpose, background: background))
                    } catch let refusal as CLIError {
                        decision = .failure(refusal)
                    } catch {
                        decision = .failure(CLIError(code: .software, message: "\(error)"))
                    }
                }
                if case .failure(let error) = decision { return "not authorized: \(error.message)" }
                return nil
            }
        } catch let failure as LocationChain.ChainFailure {
            if case .failure(let refusal)? = decision { throw refusal }
            throw Self.error(for: failure)
        } catch {
            throw CLIError(code: .software, message: "locating failed: \(error)")
        }
        var accuracy = AccuracyAuthorization.full
        if case .success(let allowed)? = decision { accuracy = allowed }
        let fix = answer.fix.limited(to: accuracy)
        var warnings: [String] = []
        for attempt in answer.attempts {
            if case .skipped(let reason) = attempt.outcome, reason.hasPrefix("not authorized") {
                warnings.append("\(attempt.provider) was not used: \(reason)")
            } else if case .failed(let reason) = attempt.outcome {
                warnings.append("\(attempt.provider) gave no location: \(reason)")
            }
        }
        return Resolution(
            fix: fix, provider: answer.provider, attempts: answer.attempts, accuracy: accuracy, warnings: warnings)
    }

    /// For a stream (`locate --watch`): the links that may run, in order, and the
    /// accuracy allowed. Sensing providers are dropped when not authorized; if that
    /// leaves nothing usable, the refusal is thrown.
    func authorizedLinks(background: Bool = false) throws(CLIError) -> (
        links: [LocationChain.Link], accuracy: AccuracyAuthorization, warnings: [String]
    ) {
        var links = try chain().links.filter { !($0.provider is UnconfiguredManualProvider) }
        let purpose = sensingPurpose(links)
        guard !purpose.isEmpty else {
            if links.isEmpty { throw .config(UnconfiguredManualProvider.reason) }
            return (links, .full, [])
        }
        do {
            return (links, try authorize(purpose: purpose, background: background), [])
        } catch {
            links = links.filter { !$0.provider.senses }
            if links.isEmpty { throw error }
            return (links, .full, ["\(purpose) not used: \(error.message)"])
        }
    }

    /// What the sensing providers among `links` are, for the prompt ("" when none senses).
    private func sensingPurpose(_ links: [LocationChain.Link]) -> String {
        links.filter { $0.provider.senses }.map { describe($0.provider) }.joined(separator: ", ")
    }

    /// The authorization gate's answer for sensing `purpose`.
    private func authorize(purpose: String, background: Bool) throws(CLIError) -> AccuracyAuthorization {
        try AuthorizationGate(configuration: configuration, environment: context.environment, console: context.console)
            .authorize(purpose: purpose, background: background)
    }

    private func describe(_ provider: any LocationProvider) -> String {
        switch provider {
        case is GPSDProvider: return "gpsd at \(configuration.gpsd.host):\(configuration.gpsd.port)"
        case let ip as IPLocationProvider: return "IP geolocation by \(ip.service.rawValue)"
        default: return provider.name
        }
    }

    /// EX_TEMPFAIL when waiting may help (no fix yet, gpsd restarting, a rate limit);
    /// EX_UNAVAILABLE when something must be fixed first (gpsd not running).
    static func error(for failure: LocationChain.ChainFailure) -> CLIError {
        let retryable = failure.errors.values.contains { error in
            switch error {
            case let gpsd as GPSDError:
                if case .notReachable = gpsd { return false }
                return true
            case let ip as IPLocationError: return ip.isRetryable
            default: return false
            }
        }
        return CLIError(code: retryable ? .tempFail : .unavailable, message: failure.description)
    }
}

/// Stands in the chain where `manual` is listed but nothing is configured, so the
/// attempt list says what to configure.
struct UnconfiguredManualProvider: LocationProvider {
    static let reason = "no manual location ('airloc use PLACE', or [location] latitude/longitude or place)"
    let name = "manual"
    let senses = false

    func currentFix(timeout: Duration) async throws -> Fix {
        throw CLIError(code: .config, message: Self.reason)
    }
}
