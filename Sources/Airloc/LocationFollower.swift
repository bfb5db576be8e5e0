import Foundation
import Geo
import Location

/// One thing that happened while following the device's location (`locate --watch`,
/// the logger): a fix, or a change in the followed provider's state.
public struct FollowEvent: Sendable, Equatable {
    /// What happened to the followed location.
    public enum Kind: String, Sendable, Equatable {
        case connected, fix, stale, lost, disconnected
        case noFixYet = "no_fix_yet"
    }

    /// What happened.
    public var kind: Kind
    /// The provider the event is about ("gpsd", or the fallback that answered).
    public var provider: String
    /// The fix (as the authorization allows) for `fix` and `stale`.
    public var fix: Fix?
    /// Why, for the events without a fix.
    public var reason: String?
    /// Seconds until the next reconnection attempt, for `disconnected`.
    public var retryIn: Double?
    /// When this device received it.
    public var time: Date

    /// An event.
    public init(
        kind: Kind, provider: String, fix: Fix? = nil, reason: String? = nil, retryIn: Double? = nil, time: Date
    ) {
        self.kind = kind
        self.provider = provider
        self.fix = fix
        self.reason = reason
        self.retryIn = retryIn
        self.time = time
    }
}

/// The rules of following a location: which updates of the followed provider become
/// events, when the rest of the chain stands in, and when the stream has given enough.
///
/// A pure state machine (events in, actions out; no I/O, no clock of its own), driven by
/// ``LocationSession/follow(maximumFixes:)``.
///
/// Contract:
/// - Every fix is limited to the allowed accuracy before anything sees it.
/// - A fix replaces the one held only by ``FixPreference`` (GeoClue's rule).
/// - When the followed provider has no fix (lost, none yet, disconnected) the rest of the
///   chain is asked once per outage; its answer is reported with its provider and held
///   only as a stand-in, so the followed provider's next fix takes over again.
/// - With `maximumFixes`, the stream finishes after that many fixes.
public struct LocationFollower: Sendable {
    /// What the session does.
    public enum Action: Sendable, Equatable {
        case none
        case report(FollowEvent)
        /// Report, then ask the rest of the chain once and call ``fallbackAnswered(_:provider:at:)``.
        case reportAndAskFallback(FollowEvent)
        /// Report, then end the stream.
        case reportAndFinish(FollowEvent)
    }

    private enum State: Sendable {
        case following(held: Fix?, heldIsCurrent: Bool, askedFallback: Bool, fixes: Int)
        case finished
    }

    /// The provider followed.
    public let provider: String
    /// The accuracy every fix is limited to.
    public let accuracy: AccuracyAuthorization
    /// True when the chain has providers to stand in.
    public let hasFallback: Bool
    /// Stop after this many fixes (nil: never).
    public let maximumFixes: Int?
    private var state = State.following(held: nil, heldIsCurrent: false, askedFallback: false, fixes: 0)

    /// A follower of `provider`.
    public init(provider: String, accuracy: AccuracyAuthorization, hasFallback: Bool, maximumFixes: Int? = nil) {
        self.provider = provider
        self.accuracy = accuracy
        self.hasFallback = hasFallback
        self.maximumFixes = maximumFixes
    }

    /// The followed provider reported `update` at `time`.
    public mutating func received(_ update: LocationUpdate, at time: Date) -> Action {
        guard case .following(var held, var heldIsCurrent, var askedFallback, var fixes) = state else { return .none }
        defer {
            state = .following(held: held, heldIsCurrent: heldIsCurrent, askedFallback: askedFallback, fixes: fixes)
        }
        let event: FollowEvent
        switch update {
        case .connected:
            event = FollowEvent(kind: .connected, provider: provider, time: time)
        case .fix(let raw):
            let fix = raw.limited(to: accuracy)
            askedFallback = false
            guard FixPreference.shouldReplace(held, heldIsCurrent: heldIsCurrent, with: fix) else { return .none }
            held = fix
            heldIsCurrent = true
            fixes += 1
            event = FollowEvent(kind: .fix, provider: provider, fix: fix, time: time)
        case .stale(let raw, let reason):
            heldIsCurrent = false
            event = FollowEvent(
                kind: .stale, provider: provider, fix: raw.limited(to: accuracy), reason: reason, time: time)
        case .lost(_, let reason):
            heldIsCurrent = false
            event = FollowEvent(kind: .lost, provider: provider, reason: reason, time: time)
        case .noFixYet(let seconds, let mode):
            event = FollowEvent(
                kind: .noFixYet, provider: provider,
                reason: GPSDError.noFix(seconds: seconds, lastMode: mode).description,
                time: time)
        case .disconnected(let reason, let retry):
            heldIsCurrent = false
            event = FollowEvent(kind: .disconnected, provider: provider, reason: reason, retryIn: retry, time: time)
        }
        if let maximumFixes, fixes >= maximumFixes {
            state = .finished
            return .reportAndFinish(event)
        }
        let outage = [.lost, .noFixYet, .disconnected].contains(event.kind)
        if outage && !askedFallback && hasFallback {
            askedFallback = true
            return .reportAndAskFallback(event)
        }
        return .report(event)
    }

    /// The rest of the chain answered with `fix` from `provider`.
    public mutating func fallbackAnswered(_ fix: Fix, provider fallback: String, at time: Date) -> Action {
        guard case .following(_, _, let askedFallback, var fixes) = state else { return .none }
        let limited = fix.limited(to: accuracy)
        fixes += 1
        // A stand-in: held, but not current, so the followed provider's next fix replaces it.
        state = .following(held: limited, heldIsCurrent: false, askedFallback: askedFallback, fixes: fixes)
        let event = FollowEvent(kind: .fix, provider: fallback, fix: limited, time: time)
        if let maximumFixes, fixes >= maximumFixes {
            state = .finished
            return .reportAndFinish(event)
        }
        return .report(event)
    }
}
