import Foundation

/// The time airloc's deadlines, retry pauses, caches and back-offs read and wait on.
///
/// Contract: `now` is monotonic (deadlines and durations), `date` is calendar time (cache
/// ages, rate-limit windows, the data's own hours), and `sleep(for:)` returns after the
/// pause or throws `CancellationError` when the task is cancelled. Production code uses
/// ``SystemTime``; tests inject a clock that advances on `sleep`, so retry, deadline and
/// back-off logic runs in-process without waiting on the wall clock, and its outcome does
/// not depend on how busy the machine is.
public protocol TimeSource: Sendable {
    /// Monotonic time, for deadlines and measured durations.
    var now: ContinuousClock.Instant { get }
    /// Calendar time, for cache ages and windows that the services define in UTC.
    var date: Date { get }
    /// Pauses the calling task for `duration`.
    func sleep(for duration: Duration) async throws
}

/// The machine's clocks: `ContinuousClock` and the system's calendar time.
public struct SystemTime: TimeSource {
    /// The machine's clocks.
    public init() {}
    /// `ContinuousClock.now`.
    public var now: ContinuousClock.Instant { ContinuousClock.now }
    /// The system's calendar time.
    public var date: Date { Date() }
    /// `Task.sleep`: throws `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}

extension Duration {
    /// The duration in seconds, as a Double (for APIs that take TimeInterval).
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
