import Foundation

/// A wake-up for a loop on a thread of its own that waits between its steps (a back-off,
/// a paused connection): any other thread rings, the loop's wait ends at once and it looks
/// at what changed. ``StopSignal`` is the one-way kind; this one is rung again and again.
///
/// Contract: a ring that comes while nobody waits is kept until the next wait (which then
/// returns at once), and several rings before a wait count as one; ``wait(seconds:)``
/// returns true when it was rung, false when the time ran out.
public final class Doorbell: Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`; NSCondition is thread-safe, the flag is only touched under it.
    nonisolated(unsafe) private var rung = false

    /// A doorbell not rung yet.
    public init() {}

    /// Wakes the waiter now, or its next wait.
    public func ring() {
        condition.lock()
        rung = true
        condition.signal()
        condition.unlock()
    }

    /// Waits up to `seconds` (`.infinity`: until rung).
    @discardableResult
    public func wait(seconds: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if seconds.isFinite {
            let end = Date().addingTimeInterval(max(0, seconds))
            while !rung {
                if !condition.wait(until: end) { break }
            }
        } else {
            // Foundation's wait(until: .distantFuture) overflows its timespec: no deadline.
            while !rung { condition.wait() }
        }
        defer { rung = false }
        return rung
    }
}
