import Foundation
import Gazetteer
import Geo
import Location
import Platform
import Settings
import Web

/// "Where am I": the provider chain the settings describe, run under the authorization
/// rules, with the accuracy the user allowed applied to the answer.
///
/// Contract:
/// - A given coordinate (``Settings/givenCoordinate``) means exactly that: nothing is sensed.
/// - ``Settings/providers`` sets the order. IP geolocation runs only when listed there,
///   because it tells a third party the device's address.
/// - Sensing providers (gpsd, ip) start only after the authorization allowed them; the
///   person is asked through `prompter` when nobody has decided yet and it can ask. The
///   manual provider never needs authorization. If nothing answers and sensing was
///   refused, the refusal is the error.
/// - Reduced accuracy snaps every sensed fix to ``Privacy/reducedGrid``.
/// - `unattended` (a logger, cron, a stream without a terminal) needs the "always" grant.
public struct LocationSession: Sendable {
    /// The settings it runs with.
    public var settings: Settings
    /// The place data.
    public var gazetteer: Gazetteer
    /// How a person is asked (a daemon never asks).
    public var prompter: any AuthorizationPrompter
    /// True for a program nobody watches: it needs the "always" grant.
    public var unattended: Bool
    /// The clock that stamps followed events.
    public var time: any TimeSource

    /// A session.
    public init(
        settings: Settings, gazetteer: Gazetteer, prompter: any AuthorizationPrompter = NeverPrompt(),
        unattended: Bool = false, takesChosenPlace: Bool = true, time: any TimeSource = SystemTime()
    ) {
        self.settings = settings
        self.gazetteer = gazetteer
        self.prompter = prompter
        self.unattended = unattended
        self.takesChosenPlace = takesChosenPlace
        self.time = time
    }

    /// Whether the place chosen with `airloc use` or `airloc pick` is a manual location
    /// here. Not for the logger: a place browsed on a terminal is not where the device is,
    /// and a track must not jump to a city's centre because someone looked at its air; the
    /// logger's manual location is `[location]`'s alone.
    public var takesChosenPlace: Bool

    /// Where the device is, and how that was found out.
    public struct Location: Sendable {
        /// The fix, limited to the allowed accuracy.
        public var fix: Fix
        /// The provider that answered ("gpsd", "ip", "manual").
        public var provider: String
        /// Every provider tried.
        public var attempts: [LocationChain.Attempt]
        /// The accuracy allowed.
        public var accuracy: AccuracyAuthorization
        /// What went wrong on the way (a provider refused or without an answer).
        public var warnings: [String]
    }

    /// The manual location, if one is configured: given coordinates, else the chosen
    /// place (`airloc use`; not with ``takesChosenPlace`` false), else `[location]`
    /// coordinates, else `[location] place`
    /// resolved offline (a typo must not quietly move the user elsewhere: an unknown
    /// place is an error).
    public func manualProvider() throws(LocationSessionError) -> ManualProvider? {
        if let given = settings.givenCoordinate {
            return ManualProvider(coordinate: given.coordinate, origin: given.origin)
        }
        if takesChosenPlace, let chosen = settings.chosenPlace {
            return ManualProvider(coordinate: chosen.coordinate, origin: "chosen place \(chosen.displayName)")
        }
        if let latitude = settings.manualLatitude, let longitude = settings.manualLongitude,
            let coordinate = try? Coordinate(latitude: latitude, longitude: longitude)
        {
            return ManualProvider(coordinate: coordinate, origin: "configured")
        }
        if let name = settings.manualPlace {
            let namesakes = gazetteer.places(named: name)
            guard let place = namesakes.first else { throw .unknownPlace(name, origin: settings.manualOrigin) }
            // As `airloc use` decides: several places of similar size (within 5× of the
            // most populous) make the name ambiguous; a configured location must not be
            // a coin toss.
            let similar = Namesakes.ambiguous(namesakes)
            if !similar.isEmpty { throw .ambiguousPlace(name, similar, origin: settings.manualOrigin) }
            return ManualProvider(coordinate: place.coordinate, origin: "place \(place.displayName)")
        }
        return nil
    }

    /// The chain, in the settings' order, each provider with its deadline.
    public func chain() throws(LocationSessionError) -> LocationChain {
        if settings.givenCoordinate != nil {
            return LocationChain([.init(try manualProvider() ?? UnconfiguredManualProvider(), deadline: .seconds(1))])
        }
        var links: [LocationChain.Link] = []
        for name in settings.providers {
            switch name {
            case .gpsd:
                let provider = GPSDProvider(options: settings.gpsd, timing: settings.gpsdTiming)
                links.append(.init(provider, deadline: Settings.milliseconds(settings.gpsdTimeout)))
            case .ip:
                let provider = IPLocationProvider(service: settings.ipService, baseURL: settings.ipURL)
                links.append(.init(provider, deadline: Settings.milliseconds(settings.serviceTimeout)))
            case .manual:
                let provider: any LocationProvider = try manualProvider() ?? UnconfiguredManualProvider()
                links.append(.init(provider, deadline: .seconds(1)))
            }
        }
        return LocationChain(links)
    }

    /// Runs the chain once.
    public func locate() async throws(LocationSessionError) -> Location {
        let chain = try chain()
        let purpose = sensingPurpose(chain.links)
        var decision: Result<AccuracyAuthorization, LocationSessionError>?
        let answer: LocationChain.Answer
        do {
            answer = try await chain.locate { provider in
                if provider is UnconfiguredManualProvider { return UnconfiguredManualProvider.reason }
                guard provider.senses else { return nil }
                if decision == nil {
                    do throws(LocationSessionError) {
                        decision = .success(try authorize(purpose: purpose))
                    } catch {
                        decision = .failure(error)
                    }
                }
                if case .failure(let error) = decision { return "not authorized: \(error.description)" }
                return nil
            }
        } catch let failure as LocationChain.ChainFailure {
            if case .failure(let refusal)? = decision { throw refusal }
            // A chain of nothing but an unconfigured manual location is a configuration
            // problem, the same one a stream reports (authorizedLinks).
            if chain.links.allSatisfy({ $0.provider is UnconfiguredManualProvider }) { throw .noManualLocation }
            throw .noLocation(failure, retryable: Self.isRetryable(failure))
        } catch {
            // Only cancellation gets here: the caller is going away.
            throw .cancelled
        }
        var accuracy = AccuracyAuthorization.full
        if case .success(let allowed)? = decision { accuracy = allowed }
        var warnings: [String] = []
        for attempt in answer.attempts {
            if case .skipped(let reason) = attempt.outcome, reason.hasPrefix("not authorized") {
                warnings.append("\(attempt.provider) was not used: \(reason)")
            } else if case .failed(let reason) = attempt.outcome {
                warnings.append("\(attempt.provider) gave no location: \(reason)")
            }
        }
        return Location(
            fix: answer.fix.limited(to: accuracy), provider: answer.provider, attempts: answer.attempts,
            accuracy: accuracy, warnings: warnings)
    }

    /// For a stream: the links that may run, in order, and the accuracy allowed. Sensing
    /// providers are dropped when not authorized; if that leaves nothing usable, the
    /// refusal is thrown.
    public func authorizedLinks() throws(LocationSessionError) -> (
        links: [LocationChain.Link], accuracy: AccuracyAuthorization, warnings: [String]
    ) {
        var links = try chain().links.filter { !($0.provider is UnconfiguredManualProvider) }
        let purpose = sensingPurpose(links)
        guard !purpose.isEmpty else {
            if links.isEmpty { throw .noManualLocation }
            return (links, .full, [])
        }
        do {
            return (links, try authorize(purpose: purpose), [])
        } catch {
            links = links.filter { !$0.provider.senses }
            if links.isEmpty { throw error }
            return (links, .full, ["\(purpose) not used: \(error.description)"])
        }
    }

    /// The authorization state machine's answer for sensing `purpose`: the stored
    /// decision and the administrator's policy, the person asked when allowed.
    public func authorize(purpose: String) throws(LocationSessionError) -> AccuracyAuthorization {
        let store = settings.authorizationStore
        var machine = LocationAuthorization(stored: store.load(), policy: settings.policy)
        var action = machine.requestSensing(interactive: prompter.canAsk, background: unattended)
        if action == .prompt {
            if case .persist(let decision) = machine.userAnswered(prompter.ask(purpose: purpose)) {
                do { try store.save(decision) } catch { throw .cannotSaveAuthorization(error) }
            }
            action = machine.requestSensing(interactive: false, background: unattended)
        }
        switch action {
        case .proceed(let accuracy): return accuracy
        case .refuse(let refusal): throw .notAuthorized(refusal)
        case .prompt, .persist, .clear: throw .notAuthorized(.notDetermined)
        }
    }

    /// What the sensing providers among `links` are, for the prompt ("" when none senses).
    func sensingPurpose(_ links: [LocationChain.Link]) -> String {
        links.filter { $0.provider.senses }.map { describe($0.provider) }.joined(separator: ", ")
    }

    func describe(_ provider: any LocationProvider) -> String {
        switch provider {
        case is GPSDProvider: return "gpsd at \(settings.gpsd.host):\(settings.gpsd.port)"
        case let ip as IPLocationProvider: return "IP geolocation by \(ip.service.rawValue)"
        default: return provider.name
        }
    }

    static func isRetryable(_ failure: LocationChain.ChainFailure) -> Bool {
        failure.errors.values.contains { error in
            switch error {
            case let gpsd as GPSDError:
                if case .notReachable = gpsd { return false }
                return true
            case let ip as IPLocationError: return ip.isRetryable
            default: return false
            }
        }
    }
}

/// Stands in the chain where `manual` is listed but nothing is configured, so the
/// attempt list says what to configure.
struct UnconfiguredManualProvider: LocationProvider {
    static let reason = LocationSessionError.noManualLocationReason
    let name = "manual"
    let senses = false

    func currentFix(timeout: Duration) async throws -> Fix {
        throw LocationSessionError.noManualLocation
    }
}

extension LocationSession {
    /// A followed location: what the authorization left out, and its events.
    ///
    /// Contract: ``start`` begins following and hands each event to its callback as it
    /// happens, in order, on whatever thread brought it (nil once the events end); the
    /// function it returns stops following. ``events`` is the same as a stream. Each is
    /// for one consumer: a second start follows again.
    public struct Following: Sendable {
        /// Providers left out for lack of authorization, and why.
        public var warnings: [String]
        /// The accuracy the authorization allows (every fix is limited to it).
        public var accuracy: AccuracyAuthorization
        /// Begins following (see the contract).
        public let start: @Sendable (_ deliver: @escaping @Sendable (FollowEvent?) -> Void) -> @Sendable () -> Void

        /// The events, in order, as a stream.
        public var events: AsyncStream<FollowEvent> {
            let start = self.start
            return AsyncStream { continuation in
                let stop = start { event in
                    if let event { continuation.yield(event) } else { continuation.finish() }
                }
                continuation.onTermination = { _ in stop() }
            }
        }

        /// Events of the program's own (a replay, a test) followed as a session's would be.
        public init(warnings: [String] = [], accuracy: AccuracyAuthorization, events: AsyncStream<FollowEvent>) {
            self.init(warnings: warnings, accuracy: accuracy) { deliver in
                let task = Task {
                    for await event in events { deliver(event) }
                    deliver(nil)
                }
                return { task.cancel() }
            }
        }

        /// Events handed on by `start` (see the contract).
        public init(
            warnings: [String] = [], accuracy: AccuracyAuthorization,
            start: @escaping @Sendable (_ deliver: @escaping @Sendable (FollowEvent?) -> Void) -> @Sendable () -> Void
        ) {
            self.warnings = warnings
            self.accuracy = accuracy
            self.start = start
        }
    }

    /// Follows the first provider of the chain (see ``LocationFollower`` for the rules)
    /// until the stream's consumer stops or `maximumFixes` fixes were reported.
    public func follow(maximumFixes: Int? = nil) throws(LocationSessionError) -> Following {
        let (links, accuracy, warnings) = try authorizedLinks()
        guard let primary = links.first else { throw .noManualLocation }
        let fallbacks = LocationChain(Array(links.dropFirst()))
        let start = LocationFollower(
            provider: primary.provider.name, accuracy: accuracy, hasFallback: !fallbacks.links.isEmpty,
            maximumFixes: maximumFixes)
        let (time, provider) = (self.time, primary.provider)
        // On the receiver's thread, straight to the loop that reads the events: no task
        // woken in between for a fix (a device on a battery wakes once a fix, not thrice).
        return Following(warnings: warnings, accuracy: accuracy) { deliver in
            let relay = FollowRelay(follower: start, fallbacks: fallbacks, time: time, deliver: deliver)
            relay.start(provider)
            return { relay.cancel() }
        }
    }
}
