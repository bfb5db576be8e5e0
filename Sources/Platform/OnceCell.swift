/// A value set once, by whichever of several racers gets there first; everyone who
/// awaits it gets that value. The one "resume exactly once" of airloc: a blocking call
/// racing its watchdog, a request racing its cancellation, a stop request and its waiters.
///
/// Contract: ``set(_:)`` returns true for the first value and false (dropping the value)
/// for every later one; ``value`` returns at once when set, else when it is set, and
/// resumes each waiter exactly once; nothing is ever resumed under the cell's lock.
public final class OnceCell<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [CheckedContinuation<Value, Never>] = []
    }

    private let state = Lock(State())

    /// An empty cell.
    public init() {}

    /// Sets the value if none was set yet; true when this call set it.
    @discardableResult
    public func set(_ value: Value) -> Bool {
        let waiters: [CheckedContinuation<Value, Never>]? = state.withLock { state in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.waiters = [] }
            return state.waiters
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume(returning: value) }
        return true
    }

    /// The value if it is set.
    public var current: Value? { state.withLock { $0.value } }

    /// The value, waiting for it when it is not set yet.
    public var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let ready: Value? = state.withLock { state in
                    if let value = state.value { return value }
                    state.waiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
