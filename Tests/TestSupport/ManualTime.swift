import Foundation
import Web

/// A clock for in-process tests: time stands still until something sleeps on it or the
/// test advances it, and then it jumps.
///
/// Contract: `sleep(for:)` returns at once, after moving `now` and `date` forward by the
/// pause and recording it in `pauses`; nothing waits on the wall clock, so a test's
/// outcome is the same on an idle laptop and on a loaded two-core CI machine. Pauses
/// taken by concurrent tasks add up (time is one line, not one per task): tests that
/// check exact instants run one request at a time.
public final class ManualTime: TimeSource, @unchecked Sendable {
    private let lock = NSLock()
    private let origin = ContinuousClock.now
    private let startDate: Date
    private var elapsedTime: Duration = .zero
    private var takenPauses: [Duration] = []

    /// Starts at `date` (calendar time); monotonic time starts at an arbitrary instant.
    public init(date: Date = Date(timeIntervalSince1970: 1_795_000_000)) {
        startDate = date
    }

    public var now: ContinuousClock.Instant { lock.withLock { origin + elapsedTime } }
    public var date: Date { lock.withLock { startDate.addingTimeInterval(elapsedTime.seconds) } }
    /// How far the clock has moved since it was made.
    public var elapsed: Duration { lock.withLock { elapsedTime } }
    /// Every pause a caller slept, in order.
    public var pauses: [Duration] { lock.withLock { takenPauses } }

    public func advance(by duration: Duration) {
        lock.withLock { elapsedTime += max(duration, .zero) }
    }

    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        lock.withLock {
            elapsedTime += max(duration, .zero)
            takenPauses.append(duration)
        }
    }
}
