/// How long to wait before trying again after failures in a row: the one exponential
/// back-off every retrying part of airloc uses (gpsd's reconnect, the MQTT connection, the
/// collector's database, the uploads' gate, the logger's air fetch, a web request's retry).
///
/// Contract (a value: each user keeps its own, with constants declared where its
/// contract is written):
/// - After the n-th failure in a row the pause is `first × factorⁿ⁻¹`, never more than
///   `cap`; ``succeeded()`` starts the count again.
/// - A server's own word (a `Retry-After`, a rate limit's window) is honoured: the pause is
///   then at least what the server asked, up to `longestHonoured` (a server may not park a
///   client for a day), and never less than the doubling would give unless
///   `serverDecides`.
/// - `jitter` spreads the pause ("equal jitter": half fixed, half random) so that many
///   devices behind one network do not retry in step; the random number is passed in, so
///   the rule is tested without randomness.
public struct Backoff: Sendable, Equatable {
    /// The pause after the first failure.
    public var first: Duration
    /// How much longer each next pause is (2: doubling).
    public var factor: Double
    /// The longest pause of its own.
    public var cap: Duration
    /// The longest pause a server's own word may ask for.
    public var longestHonoured: Duration
    /// True: a server's pause replaces the doubling (an upload's `Retry-After`); false: the
    /// longer of the two is taken (the logger's air fetch after a 429).
    public var serverDecides: Bool
    /// Spread the pause over its upper half (a fleet does not retry in step).
    public var jitter: Bool
    /// Failures in a row so far.
    public private(set) var failures = 0

    /// A back-off with no failure yet.
    public init(
        first: Duration, factor: Double = 2, cap: Duration, longestHonoured: Duration = .seconds(3600),
        serverDecides: Bool = false, jitter: Bool = false
    ) {
        self.first = first
        self.factor = factor
        self.cap = cap
        self.longestHonoured = longestHonoured
        self.serverDecides = serverDecides
        self.jitter = jitter
    }

    /// The pause after `count` failures in a row (1 = the first), before a server's word
    /// and jitter: `first × factor^(count-1)`, at most `cap`.
    public func pause(afterFailures count: Int) -> Duration {
        guard count > 0 else { return .zero }
        var pause = first
        for _ in 1..<min(count, 64) {
            pause = pause * factor
            if pause >= cap { return cap }
        }
        return min(pause, cap)
    }

    /// ``pause(afterFailures:)`` with the jitter applied (`random` is a uniform number in
    /// 0..<1; without `jitter` it changes nothing).
    public func delay(afterFailures count: Int, random: Double = 1) -> Duration {
        let pause = pause(afterFailures: count)
        return jitter ? pause / 2 + pause / 2 * min(max(random, 0), 1) : pause
    }

    /// One more failure: the pause before the next attempt. `server` is what the server
    /// asked for, if anything; `random` a uniform number in 0..<1 for the jitter.
    public mutating func failed(server: Duration? = nil, random: Double = 1) -> Duration {
        failures += 1
        let pause = delay(afterFailures: failures, random: random)
        guard let server else { return pause }
        let honoured = min(max(server, .zero), longestHonoured)
        return serverDecides ? honoured : max(pause, honoured)
    }

    /// An attempt worked: the next failure starts from `first` again.
    public mutating func succeeded() { failures = 0 }
}
