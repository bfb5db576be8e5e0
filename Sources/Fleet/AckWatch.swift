/// When a device publishes again what the collector has not stored
/// (`[mqtt] end-to-end = collector`): after every reconnection, and when the collector's
/// acknowledgement has lagged behind what was published for longer than `timeout`.
///
/// Contract (a pure state machine, swift-nio style: one mutating func per event, each
/// returning what to do; time is passed in, so it is tested on a manual clock):
/// - ``published(at:)``: rows left for the broker; if nothing was outstanding, the wait
///   for the collector starts now.
/// - ``acknowledged(progress:outstanding:at:)``: an acknowledgement came; one that
///   covered rows restarts the wait, and nothing outstanding ends it.
/// - ``tick(outstanding:at:)``: `.remind` once per wait when it is ``reminder`` old with
///   rows still outstanding (the device says its hello again, so that a collector that
///   never sees its rows learns that it holds them); `.republish` once the wait is
///   `timeout` old; the wait then starts again (one republish per timeout, never a storm).
/// - ``reconnected(at:)``: always `.republish` (the collector may have missed what the
///   old connection carried), and the wait starts again.
public struct AckWatch: Sendable {
    /// What to do.
    public enum Action: Sendable, Equatable {
        case none
        /// Make every published but unstored row unsent again.
        case republish
        /// Say the hello again: the rows held and not acknowledged are news to a collector
        /// that does not receive them.
        case remind
    }

    private enum State: Sendable {
        case idle
        case waiting(since: ContinuousClock.Instant, reminded: Bool)
    }

    private var state = State.idle
    /// How long the collector may take.
    public let timeout: Duration
    /// How long a wait lasts before the reminder: 20 s, or half the timeout when that is
    /// shorter. A collector acknowledges within a second or two; one that has not in 20 s
    /// is in trouble or does not see the rows, and says which once it hears the hello.
    public var reminder: Duration { min(.seconds(20), timeout / 2) }

    /// A watch with nothing outstanding.
    public init(timeout: Duration) {
        self.timeout = timeout
    }

    /// Rows left for the broker at `now`.
    public mutating func published(at now: ContinuousClock.Instant) {
        if case .idle = state { state = .waiting(since: now, reminded: false) }
    }

    /// An acknowledgement came at `now`.
    public mutating func acknowledged(progress: Bool, outstanding: Int, at now: ContinuousClock.Instant) {
        if outstanding == 0 {
            state = .idle
        } else if progress {
            state = .waiting(since: now, reminded: false)
        }
    }

    /// The lag check at `now`.
    public mutating func tick(outstanding: Int, at now: ContinuousClock.Instant) -> Action {
        guard case .waiting(let since, let reminded) = state else { return .none }
        guard outstanding > 0 else {
            state = .idle
            return .none
        }
        if now - since >= timeout {
            state = .waiting(since: now, reminded: false)
            return .republish
        }
        guard !reminded, now - since >= reminder else { return .none }
        state = .waiting(since: since, reminded: true)
        return .remind
    }

    /// A new connection at `now`.
    public mutating func reconnected(at now: ContinuousClock.Instant) -> Action {
        state = .waiting(since: now, reminded: false)
        return .republish
    }

    /// When ``tick(outstanding:at:)`` can next say something: the reminder or the wait's
    /// end, while rows wait for the collector (nil: nothing to wait for).
    public var deadline: ContinuousClock.Instant? {
        if case .waiting(let since, let reminded) = state { return since + (reminded ? timeout : reminder) }
        return nil
    }

    /// True while rows wait for the collector.
    public var isWaiting: Bool {
        if case .waiting = state { return true }
        return false
    }
}
