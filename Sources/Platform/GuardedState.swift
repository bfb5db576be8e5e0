import Dispatch
import Synchronization

/// A value shared between threads, under a `Lock`, that a thread can wait on until it
/// becomes what the thread needs: the one lock type of the house, with the waiting a
/// condition variable gave (a pool's free connection, an answer another request is making,
/// a doorbell rung).
///
/// Contract:
/// - ``withLock(_:)`` reads or changes the value and wakes nobody; ``change(_:)`` changes
///   it and wakes every waiter, who then looks again.
/// - ``wait(seconds:until:)`` calls `ready` under the lock, now and after every
///   ``change(_:)``, until it returns a value (which `ready` may take, changing the value in
///   the same hold of the lock), or until `seconds` run out (`.infinity`: no end); it
///   returns nil only when the time ran out, after one last look.
/// - A change made while no one waits is not lost: the next wait sees the value as changed.
///   Waiting blocks the thread, so it is for threads of their own (a C library's, a
///   connection's), never Swift's cooperative pool.
public final class GuardedState<Value: Sendable>: Sendable {
    private struct Inner: Sendable {
        var value: Value
        /// Each waiter's semaphore, by ticket; a change signals and forgets them all.
        var waiters: [Int: DispatchSemaphore] = [:]
        var nextTicket = 0
    }
    private let inner: Lock<Inner>

    /// A guarded `value`.
    public init(_ value: Value) { inner = Lock(Inner(value: value)) }

    /// Reads or changes the value without waking waiters.
    public func withLock<Result: Sendable, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try inner.withLock { inner throws(Failure) in try body(&inner.value) }
    }

    /// Changes the value and wakes every waiter to look again.
    @discardableResult
    public func change<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        let (result, woken) = inner.withLock { inner in
            let result = body(&inner.value)
            let woken = Array(inner.waiters.values)
            inner.waiters.removeAll(keepingCapacity: true)
            return (result, woken)
        }
        // Signalled after the lock is let go: a woken waiter takes it at once.
        for semaphore in woken { semaphore.signal() }
        return result
    }

    /// Waits until `ready` returns a value, up to `seconds`; nil when the time ran out.
    public func wait<Result: Sendable>(
        seconds: Double = .infinity, until ready: (inout Value) -> Result?
    ) -> Result? {
        let deadline: DispatchTime? = seconds.isFinite ? .now() + max(0, seconds) : nil
        let semaphore = DispatchSemaphore(value: 0)
        var ticket: Int?
        while true {
            let found: Result? = inner.withLock { inner in
                if let ticket { inner.waiters[ticket] = nil }
                if let found = ready(&inner.value) { return found }
                let next = inner.nextTicket
                inner.nextTicket &+= 1
                inner.waiters[next] = semaphore
                ticket = next
                return nil
            }
            if let found { return found }
            // A signal meant for an earlier round may still be counted: it costs one
            // look more, never a missed change, since every round looks before it waits.
            if let deadline {
                if semaphore.wait(timeout: deadline) == .timedOut {
                    return inner.withLock { inner in
                        if let ticket { inner.waiters[ticket] = nil }
                        return ready(&inner.value)
                    }
                }
            } else {
                semaphore.wait()
            }
        }
    }
}
