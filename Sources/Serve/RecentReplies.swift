import Foundation
import HTTPService
import Platform

/// The answers of this second: what `/metrics`, `/api/now`, `/api/status`, `/data.json`
/// and the page said for the logbook as it is, kept so that the requests that follow are
/// answered on the connection's own thread, without making the documents again and
/// without a hop to Swift's executor; and made by one request at a time, so 50 clients
/// arriving after a commit cost one making, not 50.
///
/// Contract: an answer is kept for its path (and, for `/metrics`, its format) with the
/// logbook's data version seen *before* it was made (``Logbook/dataVersion()``: it moves
/// when a commit becomes readable) and the whole second of the clock it was made at. ``lookUp(_:version:second:)`` says:
/// - `.kept`: an answer for this version in this second;
/// - `.kept` too, an answer for this version from an earlier second while another
///   request is making the new one (its ages are behind by at most the making's time);
/// - `.make`: this caller makes it (and must call ``finish(_:reply:version:second:)``);
///   another request making it for a newer version is waited for first, up to 5 s.
/// Without a version (no logbook) nothing is kept. Only 200 answers are kept.
final class RecentReplies: Sendable {
    /// The paths whose answers depend on nothing but the logbook, the clock and `Accept`.
    static let paths: Set<String> = ["/", "/api/now", "/api/status", "/metrics", "/data.json"]

    private struct Kept {
        var version: Int64
        var second: Int64
        var reply: ServedReply
    }

    /// What a request does.
    enum Lookup {
        case kept(ServedReply)
        case make
    }

    private struct Replies: Sendable {
        var kept: [String: Kept] = [:]
        var making: Set<String> = []
    }
    private let replies = GuardedState(Replies())

    /// The key of `request`, or nil when its answer is never kept.
    static func key(_ request: ServedRequest) -> String? {
        guard paths.contains(request.path), request.arguments.isEmpty else { return nil }
        if request.path == "/metrics" {
            return "/metrics " + (DeviceMetrics.asksOpenMetrics(request) ? "open" : "text")
        }
        return request.path
    }

    /// The whole second `date` falls in.
    static func second(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    /// The kept answer for `key`, or `.make` (then the caller makes it and calls
    /// ``finish(_:reply:version:second:)``). May wait, so never on Swift's executor.
    func lookUp(_ key: String, version: Int64, second: Int64) -> Lookup {
        guard version >= 0 else { return .make }
        let lookup = replies.wait(seconds: 5) { replies -> Lookup? in
            if let found = replies.kept[key], found.version == version {
                if found.second == second || replies.making.contains(key) { return .kept(found.reply) }
            }
            guard replies.making.contains(key) else {
                replies.making.insert(key)
                return .make
            }
            // Another request is making it for a change we have not got yet: its answer
            // is the one we want.
            return nil
        }
        return lookup ?? .make
    }

    /// The answer made for `key` after ``lookUp(_:version:second:)`` said `.make` (or by a
    /// caller that did not ask): kept when it is a 200, and the waiting requests woken.
    func finish(_ key: String, reply: ServedReply, version: Int64, second: Int64) {
        replies.change { replies in
            replies.making.remove(key)
            if version >= 0, reply.status == 200, reply.stream == nil {
                replies.kept[key] = Kept(version: version, second: second, reply: reply)
            }
        }
    }
}
