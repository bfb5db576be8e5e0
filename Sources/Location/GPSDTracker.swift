import Foundation
import Geo
import Platform

/// The gpsd watch as a pure state machine (swift-nio style): the I/O loop reports what
/// happened — connected, a report, a quiet moment, the connection closed or refused — and
/// the tracker answers with what to tell the consumer and whether to reconnect.
///
/// Contract:
/// - A fix is current only while valid reports keep coming; `staleAfter` seconds after
///   the last valid one (or at once when the receiver reports no fix) it becomes
///   ``LocationUpdate/stale(_:reason:)``, and after `lostAfter` seconds
///   ``LocationUpdate/lost(last:reason:)``. Each transition is reported once.
/// - A failed or dropped connection is retried after a capped exponential back-off
///   (`initialBackoff`, doubled, at most `maximumBackoff`); a successful connection
///   resets it. The last good fix survives reconnects, still aging.
/// - Time comes in with every event, so tests drive it without clocks or sleeps.
public struct GPSDTracker: Sendable {
    private enum State: Sendable, Equatable {
        case disconnected(failures: Int)
        case connected(since: Date, firstFixReported: Bool)
    }

    private enum Freshness: Sendable, Equatable {
        case none
        case fresh
        case stale
        case lost
    }

    /// What the I/O loop must do.
    public enum Action: Sendable, Equatable {
        case none
        case emit(LocationUpdate)
        /// Tell the consumer, close the connection and try again after `after` seconds.
        case reconnect(LocationUpdate, after: Double)
    }

    private var state = State.disconnected(failures: 0)
    private var freshness = Freshness.none
    private var lastFix: Fix?
    private var lastFixAt: Date?
    private var lastMode = FixMode.notSeen
    /// The timing rules.
    public let timing: GPSDTiming

    /// A tracker not connected yet.
    public init(timing: GPSDTiming) { self.timing = timing }

    /// The last good fix, whatever its freshness.
    public var lastKnownFix: Fix? { lastFix }

    /// The connection to gpsd is up.
    public mutating func connected(at now: Date) -> Action {
        state = .connected(since: now, firstFixReported: lastFix != nil)
        return .emit(.connected)
    }

    /// Connecting failed (gpsd not running, refused, WATCH rejected).
    public mutating func connectionFailed(reason: String, at now: Date) -> Action {
        let failures: Int
        if case .disconnected(let count) = state { failures = count + 1 } else { failures = 1 }
        state = .disconnected(failures: failures)
        return .reconnect(.disconnected(reason: reason, retryIn: backoff(failures)), after: backoff(failures))
    }

    /// gpsd closed an established connection (it stopped or restarted).
    public mutating func connectionClosed(reason: String, at now: Date) -> Action {
        state = .disconnected(failures: 0)
        let delay = backoff(0)
        return .reconnect(.disconnected(reason: reason, retryIn: delay), after: delay)
    }

    /// A TPV report arrived.
    mutating func received(_ report: GPSDReport, at now: Date) -> Action {
        if report.hasMode { lastMode = report.mode }
        if var fix = report.fix {
            fix.receivedAt = now
            lastFix = fix
            lastFixAt = now
            freshness = .fresh
            if case .connected(let since, _) = state { state = .connected(since: since, firstFixReported: true) }
            return .emit(.fix(fix))
        }
        // An explicit "no fix" from the receiver makes the held fix stale at once.
        if report.hasMode, report.mode == .noFix || report.mode == .notSeen, freshness == .fresh, let lastFix {
            freshness = .stale
            return .emit(.stale(lastFix, reason: "the receiver reports no fix"))
        }
        return tick(at: now)
    }

    /// When ``tick(at:)`` next has news without a report: the held fix going stale or
    /// lost, or the first fix overdue (nil: only a report or the connection can bring
    /// any). The loop waits for data until then, not longer, and not on a fixed step.
    public var nextCheck: Date? {
        var dates: [Date] = []
        if lastFix != nil, let lastFixAt {
            switch freshness {
            case .fresh: dates.append(lastFixAt.addingTimeInterval(min(timing.staleAfter, timing.lostAfter)))
            case .stale, .none: dates.append(lastFixAt.addingTimeInterval(timing.lostAfter))
            case .lost: break
            }
        }
        if case .connected(let since, false) = state { dates.append(since.addingTimeInterval(timing.firstFix)) }
        return dates.min()
    }

    /// Time passed with no report (the loop calls this between reads).
    public mutating func tick(at now: Date) -> Action {
        if let lastFix, let lastFixAt {
            let silent = now.timeIntervalSince(lastFixAt)
            if freshness != .lost && silent >= timing.lostAfter {
                freshness = .lost
                return .emit(.lost(last: lastFix, reason: "no valid fix for \(Self.format(silent)) s"))
            }
            if freshness == .fresh && silent >= timing.staleAfter {
                freshness = .stale
                return .emit(.stale(lastFix, reason: "no valid fix for \(Self.format(silent)) s"))
            }
        }
        if case .connected(let since, false) = state, now.timeIntervalSince(since) >= timing.firstFix {
            state = .connected(since: since, firstFixReported: true)
            return .emit(.noFixYet(seconds: timing.firstFix, lastMode: lastMode))
        }
        return .none
    }

    /// The reconnect's pause after `failures` failures in a row (a dropped connection counts as the first).
    private func backoff(_ failures: Int) -> Double {
        Backoff(
            first: .milliseconds(Int(timing.initialBackoff * 1000)),
            cap: .milliseconds(Int(timing.maximumBackoff * 1000))
        )
        .pause(afterFailures: max(1, failures)).seconds
    }

    private static func format(_ seconds: Double) -> String {
        String(format: "%.0f", seconds.rounded(.down))
    }
}
