/// When an upload may send its next request: paced after a success, backing off after a
/// failure retrying can fix, stopped after one it cannot.
///
/// Contract (a pure state machine: one mutating func per event; time is passed in, so it
/// is tested on a manual clock):
/// - After ``accepted(at:)`` the next request waits `pace` (a server's fair use).
/// - After ``retry(after:at:)`` (429, 5xx, no answer) it waits the server's Retry-After
///   when it gave one (at most an hour), else 5 s doubling per failure in a row, to 10
///   minutes: a server that is down is asked rarely, never in a storm.
/// - After ``refused(_:)`` (bad credentials, an unknown box or device) it never sends
///   again: ``stopped`` says why.
public struct UploadGate: Sendable {
    private enum State: Sendable {
        case ready(at: ContinuousClock.Instant?)
        case backingOff(until: ContinuousClock.Instant, failures: Int)
        case stopped(String)
    }

    private var state = State.ready(at: nil)
    public let pace: Duration
    public static let longestPause = Duration.seconds(600)

    public init(pace: Duration) { self.pace = pace }

    /// When the next request may go; nil once stopped.
    public func next(after now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        switch state {
        case .ready(let at): return max(now, at ?? now)
        case .backingOff(let until, _): return max(now, until)
        case .stopped: return nil
        }
    }

    public var stopped: String? {
        if case .stopped(let reason) = state { return reason }
        return nil
    }

    /// Failures in a row so far.
    public var failures: Int {
        if case .backingOff(_, let failures) = state { return failures }
        return 0
    }

    public mutating func accepted(at now: ContinuousClock.Instant) {
        guard stopped == nil else { return }
        state = .ready(at: now + pace)
    }

    /// The pause it chose, for the message.
    @discardableResult
    public mutating func retry(after serverSays: Duration?, at now: ContinuousClock.Instant) -> Duration {
        guard stopped == nil else { return .zero }
        let count = failures + 1
        let doubling = Duration.seconds(5) * (1 << min(count - 1, 7))
        let pause = min(
            serverSays.map { min($0, .seconds(3600)) } ?? doubling,
            serverSays == nil ? Self.longestPause : .seconds(3600))
        state = .backingOff(until: now + max(pause, pace), failures: count)
        return max(pause, pace)
    }

    public mutating func refused(_ reason: String) { state = .stopped(reason) }
}
