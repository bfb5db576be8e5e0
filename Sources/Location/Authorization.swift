/// Whether airloc may sense this device's location: Core Location's states, for Linux.
public enum AuthorizationStatus: String, Sendable, Codable, CaseIterable {
    /// The user has not decided yet.
    case notDetermined
    /// Allowed for interactive commands (`now`, `locate`).
    case authorizedWhenInUse
    /// Allowed also for unattended use (the background logger).
    case authorizedAlways
    /// The user said no.
    case denied
    /// The administrator's policy forbids it; the user cannot lift it.
    case restricted
}

/// How precise a sensed location may be: `full`, or `reduced` to city level.
public enum AccuracyAuthorization: String, Sendable, Codable, CaseIterable {
    case full
    case reduced
}

/// What the user (or `airloc auth`) decided; persisted by ``AuthorizationStore``.
public struct AuthorizationDecision: Sendable, Equatable, Codable {
    /// May airloc sense the location, and when.
    public var status: AuthorizationStatus
    /// How precisely.
    public var accuracy: AccuracyAuthorization

    /// A decision.
    public init(status: AuthorizationStatus, accuracy: AccuracyAuthorization) {
        self.status = status
        self.accuracy = accuracy
    }
}

/// The administrator's word from /etc/airloc/airloc.conf `[authorization]`.
public struct AuthorizationPolicy: Sendable, Equatable {
    /// What the administrator allows.
    public enum Mode: String, Sendable, CaseIterable {
        /// The user decides (default).
        case ask
        /// Pre-authorized for everyone on this device (a dedicated logger).
        case allow
        /// Location sensing is off for everyone: status `restricted`.
        case forbid
    }

    /// Ask each user, allow or forbid.
    public var mode: Mode
    /// The most precise accuracy anyone may get.
    public var maximumAccuracy: AccuracyAuthorization

    /// A policy (the default asks and allows full accuracy).
    public init(mode: Mode = .ask, maximumAccuracy: AccuracyAuthorization = .full) {
        self.mode = mode
        self.maximumAccuracy = maximumAccuracy
    }
}

/// The authorization state machine (swift-nio style): a value with a private state and
/// one mutating function per event, each returning what the owner must do. No I/O: the
/// owner reads the store, prompts, and writes the store.
///
/// Contract: sensing is allowed only in the authorized states; `restricted` cannot be
/// left by any user event; a non-interactive request while `notDetermined` never asks
/// (it refuses with ``Refusal/notDetermined``), so scripts and services never hang.
public struct LocationAuthorization: Sendable {
    private enum State: Sendable, Equatable {
        case notDetermined
        case asking(always: Bool)
        case authorized(always: Bool, accuracy: AccuracyAuthorization)
        case denied
        case restricted
    }

    /// Why sensing may not go ahead.
    public enum Refusal: Sendable, Equatable {
        case notDetermined
        case denied
        case restricted
        /// Background use needs `authorizedAlways`; only when-in-use was granted.
        case needsAlways
    }

    /// What the owner must do after an event.
    public enum Action: Sendable, Equatable {
        /// Go ahead, blurring fixes to `accuracy`.
        case proceed(accuracy: AccuracyAuthorization)
        /// Ask the user on the terminal, then report with ``userAnswered(_:)``.
        case prompt
        /// Do not sense; tell the user why and how to change it.
        case refuse(Refusal)
        /// Write this decision to the store (and then continue as the next event says).
        case persist(AuthorizationDecision)
        /// Remove the stored decision.
        case clear
    }

    /// A terminal answer to the prompt.
    public enum Answer: Sendable, Equatable {
        case allowWhenInUse(AccuracyAuthorization)
        case allowAlways(AccuracyAuthorization)
        case deny
    }

    private var state: State
    private let policy: AuthorizationPolicy

    /// Starts from the stored decision (nil when none) under the administrator's policy.
    public init(stored: AuthorizationDecision?, policy: AuthorizationPolicy) {
        self.policy = policy
        switch policy.mode {
        case .forbid:
            state = .restricted
        case .allow:
            state = .authorized(always: true, accuracy: policy.maximumAccuracy)
        case .ask:
            switch stored?.status {
            case nil, .notDetermined?, .restricted?: state = .notDetermined
            case .denied?: state = .denied
            case .authorizedWhenInUse?:
                state = .authorized(always: false, accuracy: Self.cap(stored!.accuracy, policy))
            case .authorizedAlways?:
                state = .authorized(always: true, accuracy: Self.cap(stored!.accuracy, policy))
            }
        }
    }

    private static func cap(_ accuracy: AccuracyAuthorization, _ policy: AuthorizationPolicy) -> AccuracyAuthorization {
        policy.maximumAccuracy == .reduced ? .reduced : accuracy
    }

    /// The status now, the policy applied.
    public var status: AuthorizationStatus {
        switch state {
        case .notDetermined, .asking: return .notDetermined
        case .authorized(let always, _): return always ? .authorizedAlways : .authorizedWhenInUse
        case .denied: return .denied
        case .restricted: return .restricted
        }
    }

    /// The accuracy now, capped by the policy.
    public var accuracy: AccuracyAuthorization {
        if case .authorized(_, let accuracy) = state { return accuracy }
        return Self.cap(.full, policy)
    }

    /// A command wants to sense the location. `background` is true for unattended use
    /// (the logger), which needs `authorizedAlways`.
    public mutating func requestSensing(interactive: Bool, background: Bool = false) -> Action {
        switch state {
        case .restricted: return .refuse(.restricted)
        case .denied: return .refuse(.denied)
        case .authorized(let always, let accuracy):
            if background && !always { return .refuse(.needsAlways) }
            return .proceed(accuracy: accuracy)
        case .notDetermined, .asking:
            guard interactive else { return .refuse(.notDetermined) }
            state = .asking(always: background)
            return .prompt
        }
    }

    /// The user answered the prompt. Returns `.persist`; call ``requestSensing`` again
    /// (or read ``status``) to continue.
    public mutating func userAnswered(_ answer: Answer) -> Action {
        guard case .asking = state else { return .refuse(status == .restricted ? .restricted : .notDetermined) }
        return apply(answer)
    }

    /// `airloc auth grant [--always] [--reduced]`.
    public mutating func grant(always: Bool, accuracy: AccuracyAuthorization) -> Action {
        if state == .restricted { return .refuse(.restricted) }
        return apply(always ? .allowAlways(accuracy) : .allowWhenInUse(accuracy))
    }

    /// `airloc auth deny`.
    public mutating func deny() -> Action {
        if state == .restricted { return .refuse(.restricted) }
        return apply(.deny)
    }

    /// `airloc auth reset`: forget the decision (the next interactive use asks again).
    public mutating func reset() -> Action {
        if state == .restricted { return .refuse(.restricted) }
        state = policy.mode == .allow ? .authorized(always: true, accuracy: policy.maximumAccuracy) : .notDetermined
        return .clear
    }

    private mutating func apply(_ answer: Answer) -> Action {
        switch answer {
        case .deny:
            state = .denied
            return .persist(AuthorizationDecision(status: .denied, accuracy: .full))
        case .allowWhenInUse(let accuracy):
            let capped = Self.cap(accuracy, policy)
            state = .authorized(always: false, accuracy: capped)
            return .persist(AuthorizationDecision(status: .authorizedWhenInUse, accuracy: capped))
        case .allowAlways(let accuracy):
            let capped = Self.cap(accuracy, policy)
            state = .authorized(always: true, accuracy: capped)
            return .persist(AuthorizationDecision(status: .authorizedAlways, accuracy: capped))
        }
    }
}
