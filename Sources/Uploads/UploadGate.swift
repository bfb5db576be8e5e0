import Platform

/// When an upload may send its next request: paced after a success, backing off after a
/// failure retrying can fix, stopped after one it cannot.
///
/// Contract (a pure state machine: one mutating func per event; time is passed in, so it
/// is tested on a manual clock):
/// - After ``accepted(at:)`` the next request waits `pace` (a server's fair use).
/// - After ``retry(after:at:)`` (429, 5xx, no answer) it waits the server's Retry-After
///   when it gave one (at most an hour), else ``backoff``'s pause: 5 s doubling per
///   failure in a row, to 10 minutes — a server that is down is asked rarely, never in a
///   storm.
/// - After ``refused(_:)`` (bad credentials, an unknown box or device) it never sends
///   again: ``stopped`` says why.
public struct UploadGate: Sendable {
    private enum State: Sendable {
        case ready(at: ContinuousClock.Instant?)
        case backingOff(until: ContinuousClock.Instant)
        case stopped(String)
    }

    private var state = State.ready(at: nil)
    /// The least time between two requests.
    public let pace: Duration
    /// The uploads' back-off: 5 s doubling to 10 minutes; a server's Retry-After decides
    /// when it gives one, up to an hour.
    private var backoff = Backoff(
        first: .seconds(5), cap: longestPause, longestHonoured: .seconds(3600), serverDecides: true)
    /// The longest pause of its own.
    public static let longestPause = Duration.seconds(600)

    /// A gate with nothing sent yet.
    public init(pace: Duration) { self.pace = pace }

    /// When the next request may go; nil once stopped.
    public func next(after now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        switch state {
        case .ready(let at): return max(now, at ?? now)
        case .backingOff(let until): return max(now, until)
        case .stopped: return nil
        }
    }

    /// Why it stopped, once it has.
    public var stopped: String? {
        if case .stopped(let reason) = state { return reason }
        return nil
    }

    /// Failures in a row so far.
    public var failures: Int { backoff.failures }

    /// The server took the request at `now`.
    public mutating func accepted(at now: ContinuousClock.Instant) {
        guard stopped == nil else { return }
        backoff.succeeded()
        state = .ready(at: now + pace)
    }

    /// The pause it chose, for the message.
    @discardableResult
    public mutating func retry(after serverSays: Duration?, at now: ContinuousClock.Instant) -> Duration {
        guard stopped == nil else { return .zero }
        let pause = max(backoff.failed(server: serverSays), pace)
        state = .backingOff(until: now + pause)
        return pause
    }

    /// The server refused for good.
    public mutating func refused(_ reason: String) { state = .stopped(reason) }
}
