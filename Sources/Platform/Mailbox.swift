import Synchronization

/// The one queue a service's loop reads: what its sources post — a stream's events
/// forwarded, a timer gone off, the stop request — in the order it happened, so that the
/// loop waits on all of them at once and handles one at a time.
///
/// Contract:
/// - ``send(_:)`` from anywhere; ``forward(_:_:)`` posts every element of a stream until
///   it ends; ``wake(after:on:with:)`` posts once after a pause of the given clock (a
///   ``Timer`` that can be cancelled before it goes off).
/// - ``close()`` (or the reader's end) cancels every forwarder and timer and ends
///   ``messages``; a service calls it when its loop is done.
public final class Mailbox<Message: Sendable>: Sendable {
    /// What was posted, in order: the service's loop reads this.
    public let messages: AsyncStream<Message>
    private let post: AsyncStream<Message>.Continuation
    private let helpers = Lock<[Int: Task<Void, Never>]>([:])
    private let counter = Atomic<Int>(0)

    /// An empty mailbox.
    public init() {
        (messages, post) = AsyncStream<Message>.makeStream()
    }

    deinit { close() }

    /// Posts `message` now.
    public func send(_ message: Message) { post.yield(message) }

    /// Posts `wrap(element)` for every element of `stream`, until it ends.
    public func forward<S: AsyncSequence & Sendable>(_ stream: S, _ wrap: @escaping @Sendable (S.Element) -> Message)
    where S.Element: Sendable {
        let post = self.post
        track { _ in
            do { for try await element in stream { post.yield(wrap(element)) } } catch {}
        }
    }

    /// A message posted later, unless cancelled first.
    public struct Timer: Sendable {
        fileprivate let cancelled: @Sendable () -> Void
        /// The message will not be posted (a no-op after it was).
        public func cancel() { cancelled() }
    }

    /// Posts `message` once `pause` of `time` has passed.
    @discardableResult
    public func wake(after pause: Duration, on time: any TimeSource, with message: Message) -> Timer {
        let post = self.post
        let id = track { _ in
            do {
                try await time.sleep(for: pause)
                post.yield(message)
            } catch {}
        }
        return Timer { [weak self] in self?.helpers.withLock { $0.removeValue(forKey: id) }?.cancel() }
    }

    /// Ends the messages and every helper.
    public func close() {
        post.finish()
        let tasks = helpers.withLock { helpers in
            defer { helpers = [:] }
            return Array(helpers.values)
        }
        for task in tasks { task.cancel() }
    }

    @discardableResult
    private func track(_ body: @escaping @Sendable (Int) async -> Void) -> Int {
        let id = counter.add(1, ordering: .relaxed).newValue
        let task = Task { [weak self] in
            await body(id)
            _ = self?.helpers.withLock { $0.removeValue(forKey: id) }
        }
        helpers.withLock { $0[id] = task }
        return id
    }
}
