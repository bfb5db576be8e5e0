import Platform

/// News that the logger wrote or changed rows, for the readers in the same program that
/// wait on it (the publisher, the uploads): they wake for new rows instead of looking for
/// them on a timer.
///
/// Contract: ``announce()`` is cheap and never blocks; each ``updates()`` stream gets a
/// tick after every announcement, several announcements before the reader looks counting
/// as one (the reader then reads everything new at once). A stream ends when its reader
/// stops reading it.
public final class LogbookChanges: Sendable {
    private let readers = Lock<(next: Int, streams: [Int: AsyncStream<Void>.Continuation])>((0, [:]))

    /// News nobody listens to yet.
    public init() {}

    /// The logbook changed.
    public func announce() {
        let streams = readers.withLock { Array($0.streams.values) }
        for stream in streams { stream.yield() }
    }

    /// A tick after each change from now on.
    public func updates() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id: Int = readers.withLock { readers in
            readers.next += 1
            readers.streams[readers.next] = continuation
            return readers.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.readers.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }
}
