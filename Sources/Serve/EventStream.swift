import FleetWire
import Foundation
import HTTPService
import Logbook
import Platform
import Web

/// One client's `GET /api/events`: Server-Sent Events, event `row`, whose data is each new
/// logbook row's NDJSON line as `[serve] position` allows, and a comment every
/// ``keepAlive`` seconds so that proxies and the server's own silence limit keep it open.
///
/// Contract: it starts after the rows already written (with `Last-Event-ID`, after that
/// row: a reconnecting browser misses nothing); its bytes are made only when the server
/// asks for more, so a client that never reads holds one chunk at most, whatever the
/// logger writes; after ``restAfter`` seconds with no row, only keep-alives, it says
/// `event: rest` and ends (the page reconnects quietly 2 s later), so a stream that is
/// never read cannot hold its slot while the logbook is quiet, when its socket's buffer
/// never fills; ``end()`` ends it (the reader returns nil at once).
public final class EventStream: ServedStream, Sendable {
    /// Seconds between keep-alive comments.
    public static let keepAlive = 5.0
    /// Seconds a stream may go without being read before the server closes it.
    public let silenceLimit = 30
    /// Seconds with nothing but keep-alives after which the stream rests (ends).
    public static let restAfter = 30.0
    private struct State: Sendable {
        var pending: Data
        var seen: [RowKind: Int64]
        var ended = false
        /// The logbook's writes counted when the stream last looked.
        var changes: Int
        /// When the stream last carried a row (or began).
        var lastRow = ContinuousClock.now
        /// `event: rest` is on its way: the stream ends after it.
        var resting = false
    }
    private enum Step {
        case ended
        case chunk(Data)
        case wait(after: Int)
    }
    private let state: Lock<State>
    private let source: DeviceSource

    /// A stream of `source`'s rows after `seen`.
    init(source: DeviceSource, seen: [RowKind: Int64]) {
        self.source = source
        state = Lock(
            State(
                pending: Data("retry: 2000\n: airloc \(AirlocVersion.string)\n\n".utf8), seen: seen,
                changes: source.watch?.changes ?? 0))
    }

    /// The next bytes, at most `capacity`; blocks until there are some; nil once ended.
    public func next(capacity: Int) -> Data? {
        while true {
            let step = state.withLock { state -> Step in
                if state.ended || (state.resting && state.pending.isEmpty) { return .ended }
                guard state.pending.isEmpty else {
                    let chunk = Data(state.pending.prefix(capacity))
                    state.pending.removeFirst(chunk.count)
                    return .chunk(chunk)
                }
                return .wait(after: state.changes)
            }
            switch step {
            case .ended: return nil
            case .chunk(let chunk): return chunk
            case .wait(let before):
                // Waited for outside the lock, so end() is never held up by it.
                let changes = source.watch?.wait(after: before, seconds: Self.keepAlive) ?? before
                state.withLock { state in
                    state.changes = changes
                    guard !state.ended else { return }
                    state.pending = changes == before ? Data() : rowEvents(&state.seen)
                    let now = ContinuousClock.now
                    if !state.pending.isEmpty {
                        state.lastRow = now
                    } else if now - state.lastRow >= .seconds(Self.restAfter) {
                        state.pending = Data("event: rest\ndata: quiet\n\n".utf8)
                        state.resting = true
                    } else {
                        state.pending = Data(": keep-alive\n\n".utf8)
                    }
                }
            }
        }
    }

    /// The events of the rows written since `seen`, which moves past them.
    private func rowEvents(_ seen: inout [RowKind: Int64]) -> Data {
        guard let rows = source.newRows(after: seen) else { return Data() }
        var text = ""
        for row in rows {
            seen[row.kind] = max(seen[row.kind] ?? 0, row.id)
            guard let line = source.position.line(row) else { continue }
            text += "id: \(row.key)\nevent: row\ndata: \(line)\n\n"
        }
        return Data(text.utf8)
    }

    /// Ends the stream: the next read returns nil.
    public func end() { state.withLock { $0.ended = true } }

    /// The rows a `Last-Event-ID` (`t42`, `s7`) says were seen: that row's kind up to it.
    static func resume(from lastEventID: String?, latest: [RowKind: Int64]) -> [RowKind: Int64] {
        guard let lastEventID, let kind = RowKind(id: lastEventID), let id = Int64(lastEventID.dropFirst()),
            id <= latest[kind] ?? 0
        else { return latest }
        var seen = latest
        seen[kind] = id
        return seen
    }
}

extension Logbook.OutboxRow {
    var kind: RowKind {
        switch self {
        case .track: return .track
        case .air: return .air
        case .sensor: return .sensor
        }
    }

    var id: Int64 {
        switch self {
        case .track(let point): return point.id
        case .air(let record): return record.id
        case .sensor(let reading): return reading.id
        }
    }
}
