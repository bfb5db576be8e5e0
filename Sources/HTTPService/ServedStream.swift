import Foundation

/// A reply that goes on after its head: Server-Sent Events and the like, read by the server
/// a chunk at a time (``HTTPServer`` asks for more only when the client took the last).
///
/// Contract: ``next(capacity:)`` blocks until it has bytes (at most `capacity`) and returns
/// nil once the stream is over; ``end()`` ends it from any thread, and the read in progress
/// then returns nil at once. The server closes a stream not read for ``silenceLimit``
/// seconds.
public protocol ServedStream: AnyObject, Sendable {
    /// Seconds a stream may go without being read before the server closes it.
    var silenceLimit: Int { get }
    /// The next bytes, at most `capacity`; nil once ended.
    func next(capacity: Int) -> Data?
    /// Ends the stream.
    func end()
}

/// A stream as the C side holds it (an existential cannot pass through a pointer itself).
final class StreamHandle: Sendable {
    let stream: any ServedStream
    init(_ stream: any ServedStream) { self.stream = stream }
}

/// The streams a server has open, to end them all at its stop.
final class StreamRegistry: @unchecked Sendable {
    // @unchecked: `streams` is guarded by `lock`.
    private let lock = NSLock()
    private var streams: [ObjectIdentifier: Weak] = [:]
    private struct Weak { weak var stream: (any ServedStream)? }

    func add(_ stream: any ServedStream) {
        lock.lock()
        streams = streams.filter { $0.value.stream != nil }
        streams[ObjectIdentifier(stream)] = Weak(stream: stream)
        lock.unlock()
    }

    func endAll() {
        lock.lock()
        let all = streams.values.compactMap(\.stream)
        lock.unlock()
        all.forEach { $0.end() }
    }
}
