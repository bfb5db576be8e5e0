import Foundation
import HTTPService
import Platform

/// The day's figures made: `/day.svg` kept per logbook version, width and minute, and
/// made by a bounded number of requests at once (docs/serve.md, "Security model").
///
/// Contract: ``lookUp(_:)`` says
/// - `.kept`: the figure for this key, made before (or just now by another request, which
///   was waited for: 50 clients after a commit cost one making, not 50);
/// - `.make`: this caller makes it and must call ``finish(_:reply:)``;
/// - `.busy`: ``makingAtMost`` figures are being made already (for other keys): the caller
///   answers 503 with `Retry-After` — a figure costs about half a second of CPU, and 128
///   requests from 8 addresses once took the whole page down, `/api/now` too.
/// At most ``keptAtMost`` figures are kept, the oldest dropped first. It may wait, so it
/// is used on the connection's thread, never on Swift's executor.
final class FigureCache: Sendable {
    /// Figures made at once at most.
    static let makingAtMost = 2
    /// Figures kept at most.
    static let keptAtMost = 16
    /// How long a request waits for another making its figure.
    static let patience = 20.0

    /// What a request does.
    enum Lookup {
        case kept(ServedReply)
        case make
        case busy
    }

    private struct State: Sendable {
        var kept: [String: ServedReply] = [:]
        var order: [String] = []
        var making: Set<String> = []
    }
    private let state = GuardedState(State())

    /// The key of the figure of logbook `version` at `width`, in the minute of `now`.
    static func key(version: Int64, width: Int, now: Date) -> String {
        "\(version) \(width) \(Int64(now.timeIntervalSince1970 / 60))"
    }

    /// The width a figure is made at for `asked` px: the 80 px step at or below it, from 240
    /// to 1600 (a page asks for the width it shows, which a client could otherwise vary
    /// 1,361 ways). Never wider than asked: shown wider than drawn, its labels only grow.
    static func width(_ asked: Int) -> Int { min(1600, max(240, asked / 80 * 80)) }

    /// The figure for `key`, or what to do instead.
    func lookUp(_ key: String) -> Lookup {
        state.wait(seconds: Self.patience) { state -> Lookup? in
            if let kept = state.kept[key] { return .kept(kept) }
            if state.making.contains(key) { return nil }
            guard state.making.count < Self.makingAtMost else { return .busy }
            state.making.insert(key)
            return .make
        } ?? .busy
    }

    /// The figure made for `key` after `.make`: kept when it is a 200, and the waiting
    /// requests woken.
    func finish(_ key: String, reply: ServedReply) {
        state.change { state in
            state.making.remove(key)
            guard reply.status == 200 else { return }
            if state.kept.updateValue(reply, forKey: key) == nil { state.order.append(key) }
            while state.order.count > Self.keptAtMost { state.kept[state.order.removeFirst()] = nil }
        }
    }
}
