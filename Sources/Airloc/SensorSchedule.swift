import Foundation

/// When the logger reads the particulate sensor: at the first tick, then every
/// `interval` seconds after the previous reading started, never two at once.
///
/// Contract: pure; the caller says when a reading starts and when it ends. A reading that
/// takes longer than the interval delays the next one, which then starts at once.
public struct SensorSchedule: Sendable {
    /// Seconds from one reading's start to the next.
    public let interval: TimeInterval
    private var lastStart: Date?
    private var running = false

    /// A schedule every `interval` seconds.
    public init(interval: TimeInterval) { self.interval = interval }

    /// True when a reading should start at `now`.
    public func due(at now: Date) -> Bool {
        guard !running else { return false }
        guard let lastStart else { return true }
        return now.timeIntervalSince(lastStart) >= interval
    }

    /// When the next reading should start (nil while one runs: its end comes as an event).
    public var nextStart: Date? {
        guard !running else { return nil }
        return lastStart.map { $0.addingTimeInterval(interval) } ?? .distantPast
    }

    /// A reading started at `now`.
    public mutating func started(at now: Date) {
        lastStart = now
        running = true
    }

    /// The reading ended.
    public mutating func finished() { running = false }
}
