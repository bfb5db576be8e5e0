import Foundation
import Geo

/// One event in a stream of positions (``LocationProvider/updates(timing:)``, `airloc
/// locate --watch`).
///
/// Contract: a consumer that keeps only the latest event always knows whether the
/// position it holds is current (`fix`), kept but no longer confirmed (`stale`, with its
/// age), or gone (`lost`) — it never mistakes an old fix for a fresh one.
public enum LocationUpdate: Sendable, Equatable {
    /// Connected to the source (gpsd answered; a reconnect succeeded).
    case connected
    /// A valid, current fix.
    case fix(Fix)
    /// No fix within the first-fix deadline since connecting; `lastMode` is what the
    /// receiver last said. Emitted once per connection.
    case noFixYet(seconds: Double, lastMode: FixMode)
    /// The last good fix is no longer confirmed; `reason` says why (the receiver reports
    /// no fix, or nothing was heard for a while). `fix` is the last good one.
    case stale(Fix, reason: String)
    /// Too long without a good fix: the position is unknown. `last` is kept for display.
    case lost(last: Fix?, reason: String)
    /// The source went away or could not be reached; the next attempt is in `retryIn` s.
    case disconnected(reason: String, retryIn: Double)
}

/// How long the gpsd watch waits for each thing, from `[gpsd]` in the configuration.
public struct GPSDTiming: Sendable, Equatable {
    /// Seconds from connecting to the first valid fix before saying there is none.
    public var firstFix: Double
    /// Seconds without a valid fix after which the last one is stale.
    public var staleAfter: Double
    /// Seconds without a valid fix after which the position is lost.
    public var lostAfter: Double
    /// The first reconnect delay; doubled on every failure up to ``maximumBackoff``.
    public var initialBackoff: Double
    /// The longest reconnect delay.
    public var maximumBackoff: Double

    /// The timing (the defaults are docs/configuration.md's).
    public init(
        firstFix: Double = 10, staleAfter: Double = 5, lostAfter: Double = 30,
        initialBackoff: Double = 1, maximumBackoff: Double = 30
    ) {
        self.firstFix = firstFix
        self.staleAfter = staleAfter
        self.lostAfter = max(lostAfter, staleAfter)
        self.initialBackoff = initialBackoff
        self.maximumBackoff = max(maximumBackoff, initialBackoff)
    }
}
