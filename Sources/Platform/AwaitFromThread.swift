/// The other way from ``BlockingWork``: an async operation waited for on a thread of the
/// program's own (a web server's connection thread), which must not block one of Swift's
/// cooperative threads for it.
///
/// Contract: ``result(_:)`` starts `operation` as a task and blocks the calling thread
/// until it returns its value. Call it only from a thread that is not the cooperative
/// pool's (a connection's thread, a `BlockingWork` thread): blocking the pool for work that
/// needs the pool could wait forever. The operation itself should not block: what blocks
/// belongs on the calling thread, before or after.
public enum AwaitFromThread {
    /// `operation`'s value, waited for on this thread.
    public static func result<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
        let value = GuardedState<T?>(nil)
        Task {
            let made = await operation()
            value.change { $0 = made }
        }
        // The wait has no end: it ends when the operation does, whatever it returned.
        return value.wait { $0 }!
    }
}
