import FleetStore
import Foundation
import HTTPService
import Platform

/// The fleet page's answers kept while the rows under them are unchanged: `/`,
/// `/api/last` and `/metrics` for the second they were made in, and a device's `/api/track` and `/api/map` for as long as
/// the device's version (``FleetDatabase/version(of:)``, which moves with every batch that
/// stores its rows) stays the same.
///
/// Contract: an answer is made by one request at a time: clients asking for the same thing
/// together wait for the one making it (a day's track is read once, not ten times); at
/// most ``limit`` track answers are kept, the oldest dropped first. Only answers the
/// database gave are kept, never an error.
final class FleetAnswers: Sendable {
    /// Answers kept at most (a day of one-second fixes is about 4 MB).
    static let limit = 12

    private struct Kept: Sendable {
        var version: String
        var used: UInt64
        var reply: ServedReply
    }
    private struct Answers: Sendable {
        var tracks: [String: Kept] = [:]
        var making: Set<String> = []
        var uses: UInt64 = 0
    }
    private let answers = GuardedState(Answers())

    /// The answer for `key` (`/`, `/api/last`, `/metrics`) in the whole second `now` is
    /// in: the one made in it, or `make`'s.
    func ofSecond(_ key: String, now: Date, make: () throws(DatabaseError) -> ServedReply) throws(DatabaseError)
        -> ServedReply
    {
        try track(key, version: String(Int64(now.timeIntervalSince1970.rounded(.down))), make: make)
    }

    /// The answer for `key` at `version`: the one kept, or `make`'s.
    func track(_ key: String, version: String, make: () throws(DatabaseError) -> ServedReply) throws(DatabaseError)
        -> ServedReply
    {
        // Waits while another request makes it, then takes the kept one or the making.
        let kept: ServedReply?? = answers.wait { answers in
            guard !answers.making.contains(key) else { return nil }
            answers.uses += 1
            if let kept = answers.tracks[key], kept.version == version {
                answers.tracks[key]?.used = answers.uses
                return .some(kept.reply)
            }
            answers.making.insert(key)
            return .some(nil)
        }
        if let reply = kept ?? nil { return reply }
        var made: ServedReply?
        defer {
            answers.change { [made] answers in
                answers.making.remove(key)
                guard let made else { return }
                answers.tracks[key] = Kept(version: version, used: answers.uses, reply: made)
                if answers.tracks.count > Self.limit,
                    let oldest = answers.tracks.min(by: { $0.value.used < $1.value.used })?.key
                {
                    answers.tracks[oldest] = nil
                }
            }
        }
        made = try make()
        return made!
    }
}
