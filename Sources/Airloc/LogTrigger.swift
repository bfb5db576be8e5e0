import AirQuality
import Foundation
import Geo
import Platform
import Settings

/// When a field logger records a track point and when it fetches the air: a pure state
/// machine (events in, actions out, every time given by the caller), so the rules are
/// tested without waiting on a clock. Used by `airloc log run` and `airloc now --watch`.
///
/// Contract:
/// - **Track points**: a fix is recorded when `trackInterval` seconds passed or the
///   position moved `trackDistance` metres since the last recorded point, whichever comes
///   first. A fix whose error radius exceeds `maxError` is skipped. The first point after
///   start, after ``restart()``, or after no fix for longer than `segmentGap` seconds
///   opens a new segment.
/// - **Air**: fetched at the first usable fix; again when the position moved more than
///   `airDistance` metres from where the last reading was fetched, or when the data's next
///   value exists (``airFetched(nextValueAt:at:)``: never earlier). One fetch at a time.
///   After a failure, retried after a pause doubling from `firstRetryPause` up to
///   `maxRetryPause`, or at the time the caller gives (a 429's back-off), whichever is later.
public struct LogTrigger: Sendable {
    /// The `[log]` rules (declared with the other settings, in module Settings).
    public typealias Options = LogSettings

    /// What the logger does.
    public enum Action: Sendable, Equatable {
        /// Record this fix; `newSegment` when it starts one.
        case recordPoint(newSegment: Bool)
        /// Fetch the air at this position.
        case fetchAir(Coordinate)
    }

    private enum Air: Sendable, Equatable {
        case never
        case fetching(at: Coordinate)
        case fetched(at: Coordinate, nextValueAt: Date)
        case failing(retryAt: Date)
        /// The fetch could not run yet (the consumer's clock not judged): due again at
        /// once, at the next fix, or a second later without one.
        case postponed(since: Date)
    }

    /// The rules.
    public let options: Options
    private var lastPoint: (time: Date, coordinate: Coordinate)?
    private var lastFix: Date?
    private var position: Coordinate?
    private var air = Air.never
    /// The air fetch's retries: `firstRetryPause` doubling to `maxRetryPause`, and never
    /// before a rate limit's back-off (the later of the two).
    private var retries: Backoff
    private var segmentPending = true

    /// A trigger with nothing recorded yet.
    public init(options: Options = Options()) {
        self.options = options
        retries = Backoff(
            first: .milliseconds(Int(options.firstRetryPause * 1000)),
            cap: .milliseconds(Int(max(options.maxRetryPause, options.firstRetryPause) * 1000)),
            longestHonoured: .seconds(7 * 86_400))
    }

    /// A fix arrived at `now` (this device's clock).
    public mutating func fix(_ fix: Fix, at now: Date) -> [Action] {
        if let error = fix.horizontalAccuracy, error > options.maxError { return [] }
        var actions: [Action] = []
        if let last = lastFix, now.timeIntervalSince(last) > options.segmentGap { segmentPending = true }
        lastFix = now
        position = fix.coordinate
        let due: Bool
        if let point = lastPoint, !segmentPending {
            due =
                now.timeIntervalSince(point.time) >= options.trackInterval
                || point.coordinate.distance(to: fix.coordinate) >= options.trackDistance
        } else {
            due = true
        }
        if due {
            actions.append(.recordPoint(newSegment: segmentPending))
            segmentPending = false
            lastPoint = (now, fix.coordinate)
        }
        if let fetch = airDue(at: now) { actions.append(fetch) }
        return actions
    }

    /// Time passed without a fix (the caller's timer): an air fetch may be due.
    public mutating func tick(at now: Date) -> [Action] {
        airDue(at: now).map { [$0] } ?? []
    }

    /// The fetch succeeded; the data's next value exists from `nextValueAt`.
    public mutating func airFetched(nextValueAt: Date, at now: Date) {
        guard case .fetching(let coordinate) = air else { return }
        air = .fetched(at: coordinate, nextValueAt: max(nextValueAt, now))
        retries.succeeded()
    }

    /// The fetch failed; `retryNotBefore` is a back-off the service asked for (429).
    public mutating func airFailed(retryNotBefore: Date? = nil, at now: Date) {
        guard case .fetching = air else { return }
        let server = retryNotBefore.map { Duration.milliseconds(Int(max(0, $0.timeIntervalSince(now)) * 1000)) }
        air = .failing(retryAt: now.addingTimeInterval(retries.failed(server: server).seconds))
    }

    /// The fetch just asked for cannot run yet (the clock is not yet judged): it is due
    /// again at the next fix, or a second later (``nextAirCheck``), without counting as a
    /// failure.
    public mutating func airPostponed(at now: Date) {
        guard case .fetching = air else { return }
        air = .postponed(since: now)
    }

    /// The logger restarted or gpsd came back: the next point opens a segment.
    public mutating func restart() { segmentPending = true }

    /// When ``tick(at:)`` should next be called for a due air fetch (nil: only a fix can
    /// make one due).
    public var nextAirCheck: Date? {
        switch air {
        case .fetched(_, let next): return next
        case .failing(let retryAt): return retryAt
        // Looked at again a second later: not at once, which would be a busy loop.
        case .postponed(let since): return since.addingTimeInterval(1)
        case .never, .fetching: return nil
        }
    }

    /// True while the last fetch failed and no later one succeeded.
    public var airIsFailing: Bool { retries.failures > 0 }

    private mutating func airDue(at now: Date) -> Action? {
        guard let position else { return nil }
        let due: Bool
        switch air {
        case .never: due = true
        case .fetching: due = false
        case .fetched(let at, let next):
            due = now >= next || at.distance(to: position) > options.airDistance
        case .failing(let retryAt): due = now >= retryAt
        case .postponed(let since): due = now >= since
        }
        guard due else { return nil }
        air = .fetching(at: position)
        return .fetchAir(position)
    }
}

extension LogTrigger {
    /// What a fetched report means for the next fetch: a current reading waits for the
    /// data's next value (15 minutes when the data does not say); a failure, or only an
    /// older cached answer standing in, is retried — not before `backoff`, a rate limit's
    /// back-off the caller read (the trigger itself reads nothing). Returns the reading
    /// when it is current.
    @discardableResult
    public mutating func fetched(_ report: AirReport, backoff: RateLimitBackoff?, at now: Date) -> AirQualityReading? {
        if case .success(let reading) = report.air, !report.data.airIsStale {
            airFetched(nextValueAt: reading.nextUpdate ?? now.addingTimeInterval(900), at: now)
            return reading
        }
        airFailed(retryNotBefore: backoff?.until, at: now)
        return nil
    }
}
