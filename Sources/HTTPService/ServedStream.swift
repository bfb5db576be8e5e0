import Foundation
import Platform

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

/// A stream as the C side holds it (an existential cannot pass through a pointer itself),
/// with what to do when the connection lets it go.
final class StreamHandle: Sendable {
    let stream: any ServedStream
    let released: @Sendable () -> Void
    init(_ stream: any ServedStream, released: @escaping @Sendable () -> Void) {
        self.stream = stream
        self.released = released
    }
}

/// The streams a server has open: counted in all and per client address, so that streams
/// never take every slot, and ended all at its stop.
final class StreamRegistry: Sendable {
    private struct Open {
        var streams: [ObjectIdentifier: Weak] = [:]
        var byClient: [String: Int] = [:]
    }
    private struct Weak: Sendable {
        /// A stream, not kept alive by the registry.
        weak let stream: (any ServedStream)?
    }
    private let open = Lock(Open())
    private let limit: Int
    private let perClient: Int

    init(limit: Int, perClient: Int) {
        self.limit = limit
        self.perClient = perClient
    }

    /// Counts `stream` of `client` in; false (not counted) when that would pass a limit.
    func add(_ stream: any ServedStream, client: String) -> Bool {
        open.withLock { open in
            guard open.streams.count < limit, open.byClient[client, default: 0] < perClient else { return false }
            open.streams[ObjectIdentifier(stream)] = Weak(stream: stream)
            open.byClient[client, default: 0] += 1
            return true
        }
    }

    /// `stream` of `client` ended.
    func remove(_ stream: any ServedStream, client: String) {
        open.withLock { open in
            guard open.streams.removeValue(forKey: ObjectIdentifier(stream)) != nil else { return }
            open.byClient[client, default: 1] -= 1
            if open.byClient[client] == 0 { open.byClient[client] = nil }
        }
    }

    /// Ends every stream open.
    func endAll() {
        let all = open.withLock { open in open.streams.values.compactMap(\.stream) }
        all.forEach { $0.end() }
    }
}
