/// A wake-up for a loop on a thread of its own that waits between its steps (a back-off,
/// a paused connection): any other thread rings, the loop's wait ends at once and it looks
/// at what changed. ``StopSignal`` is the one-way kind; this one is rung again and again.
///
/// Contract: a ring that comes while nobody waits is kept until the next wait (which then
/// returns at once), and several rings before a wait count as one; ``wait(seconds:)``
/// returns true when it was rung, false when the time ran out.
public final class Doorbell: Sendable {
    private let rung = GuardedState(false)

    /// A doorbell not rung yet.
    public init() {}

    /// Wakes the waiter now, or its next wait.
    public func ring() { rung.change { $0 = true } }

    /// Waits up to `seconds` (`.infinity`: until rung).
    @discardableResult
    public func wait(seconds: Double) -> Bool {
        rung.wait(seconds: seconds) { rung in
            guard rung else { return nil }
            rung = false
            return true
        } ?? false
    }
}
