import CThreadSanitizer
import Synchronization

/// The house lock: Swift's `Mutex` (the value it guards, taken and given back in
/// ``withLock(_:)``), told to ThreadSanitizer.
///
/// Why not `Mutex` itself: on Linux it waits on a futex, which ThreadSanitizer does not
/// see, so `make test-tsan` read every access made under it as a race and could find no
/// real one. ``withLock(_:)`` annotates the acquire and the release at the
/// lock's address (CThreadSanitizer; nothing at all in a build without the sanitizer).
///
/// Contract: `Mutex`'s — the same `withLock`, the same `sending` rules, not reentrant.
public struct Lock<Value: ~Copyable>: ~Copyable {
    private let mutex: Mutex<Value>

    /// A lock guarding `value`.
    public init(_ value: consuming sending Value) { mutex = Mutex(value) }

    /// Runs `body` with the value, the lock held.
    public borrowing func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        // The lock's own address names it to the sanitizer: taken before the value is
        // touched (an access to the value would itself be seen before the acquire).
        let address = withUnsafePointer(to: self) { UnsafeRawPointer($0) }
        return try mutex.withLock { (value: inout sending Value) throws(Failure) -> sending Result in
            airloc_tsan_acquire(address)
            defer { airloc_tsan_release(address) }
            return try body(&value)
        }
    }
}

extension Lock: @unchecked Sendable where Value: ~Copyable {}
