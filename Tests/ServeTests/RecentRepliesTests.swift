import Foundation
import HTTPService
import Testing

@testable import Serve

/// The answers of this second: kept for the same logbook state and second, the last one
/// served while the next is made, one maker at a time for a new commit, and never a
/// failure or an answer without a change count.
@Suite struct RecentRepliesTests {
    static func reply(_ text: String, status: Int = 200) -> ServedReply {
        ServedReply(status: status, text: text)
    }

    static func text(_ lookup: RecentReplies.Lookup) -> String? {
        if case .kept(let reply) = lookup { return reply.text }
        return nil
    }

    @Test func anAnswerIsKeptForItsCommitAndItsSecond() {
        let recent = RecentReplies()
        #expect(Self.text(recent.lookUp("/metrics text", version: 3, second: 100)) == nil, "the first one makes it")
        recent.finish("/metrics text", reply: Self.reply("three"), version: 3, second: 100)
        #expect(Self.text(recent.lookUp("/metrics text", version: 3, second: 100)) == "three")
        #expect(Self.text(recent.lookUp("/metrics open", version: 3, second: 100)) == nil, "another format")
        // The next second: one request makes it again, the others meanwhile get the last.
        #expect(Self.text(recent.lookUp("/metrics text", version: 3, second: 101)) == nil)
        #expect(Self.text(recent.lookUp("/metrics text", version: 3, second: 101)) == "three")
        recent.finish("/metrics text", reply: Self.reply("three, later"), version: 3, second: 101)
        #expect(Self.text(recent.lookUp("/metrics text", version: 3, second: 101)) == "three, later")
    }

    @Test func aCommitIsWaitedForNeverAnsweredFromBeforeIt() async throws {
        let recent = RecentReplies()
        _ = recent.lookUp("/api/now", version: 3, second: 100)
        recent.finish("/api/now", reply: Self.reply("before"), version: 3, second: 100)
        // A commit: the first request makes the new answer...
        #expect(Self.text(recent.lookUp("/api/now", version: 4, second: 100)) == nil)
        // ...and another one waits for it (on a thread of its own, as a connection's is),
        // never taking the answer from before the commit.
        let waiter = Task.detached { Self.text(recent.lookUp("/api/now", version: 4, second: 100)) }
        recent.finish("/api/now", reply: Self.reply("after"), version: 4, second: 100)
        #expect(await waiter.value == "after")
    }

    @Test func failuresAndAnswersWithoutALogbookAreNeverKept() {
        let recent = RecentReplies()
        _ = recent.lookUp("/api/status", version: 1, second: 5)
        recent.finish("/api/status", reply: Self.reply("no logbook", status: 404), version: 1, second: 5)
        #expect(Self.text(recent.lookUp("/api/status", version: 1, second: 5)) == nil)
        recent.finish("/api/status", reply: Self.reply("made"), version: -1, second: 5)
        #expect(Self.text(recent.lookUp("/api/status", version: -1, second: 5)) == nil)
    }

    @Test func onlyThePathsWithoutArgumentsAreKept() {
        #expect(RecentReplies.key(ServedRequest(path: "/api/now")) == "/api/now")
        #expect(RecentReplies.key(ServedRequest(path: "/api/track")) == nil)
        #expect(RecentReplies.key(ServedRequest(path: "/api/events")) == nil)
        #expect(RecentReplies.key(ServedRequest(path: "/", arguments: ["since": "2026-12-01T00:00Z"])) == nil)
        let open = ServedRequest(path: "/metrics", headers: ["accept": "application/openmetrics-text;version=1.0.0"])
        #expect(RecentReplies.key(open) == "/metrics open")
        #expect(RecentReplies.key(ServedRequest(path: "/metrics")) == "/metrics text")
    }
}
