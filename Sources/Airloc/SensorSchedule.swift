import Foundation

/// When the logger reads the particulate sensor: at the first tick, then every
/// `interval` seconds after the previous reading started, never two at once.
///
/// Contract: pure; the caller says when a reading starts and when it ends. A reading that
/// takes longer than the interval delays the next one, which then starts at once.
public struct SensorSchedule: Sendable {
    public let interval: TimeInterval
    private var lastStart: Date?
    private var running = false

    public init(interval: TimeInterval) { self.interval = interval }

    public func due(at now: Date) -> Bool {
        guard !running else { return false }
        guard let lastStart else { return true }
        return now.timeIntervalSince(lastStart) >= interval
    }

    public mutating func started(at now: Date) {
        lastStart = now
        running = true
    }

    public mutating func finished() { running = false }
}
