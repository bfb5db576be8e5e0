import FleetStore
import Foundation
import HTTPService

/// The fleet page's answers kept while the rows under them are unchanged: `/`,
/// `/api/last` and `/metrics` for the second they were made in, and a device's `/api/track` and `/api/map` for as long as
/// the device's version (``FleetDatabase/version(of:)``, which moves with every batch that
/// stores its rows) stays the same.
///
/// Contract: an answer is made by one request at a time: clients asking for the same thing
/// together wait for the one making it (a day's track is read once, not ten times); at
/// most ``limit`` track answers are kept, the oldest dropped first. Only answers the
/// database gave are kept, never an error.
final class FleetAnswers: @unchecked Sendable {
    /// Answers kept at most (a day of one-second fixes is about 4 MB).
    static let limit = 12

    // @unchecked: every field is guarded by `condition`.
    private let condition = NSCondition()
    private var tracks: [String: (version: String, used: UInt64, reply: ServedReply)] = [:]
    private var making: Set<String> = []
    private var uses: UInt64 = 0

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
        condition.lock()
        while making.contains(key) { condition.wait() }
        uses += 1
        if let kept = tracks[key], kept.version == version {
            tracks[key]?.used = uses
            condition.unlock()
            return kept.reply
        }
        making.insert(key)
        condition.unlock()
        var made: ServedReply?
        defer {
            condition.lock()
            making.remove(key)
            if let made {
                tracks[key] = (version, uses, made)
                if tracks.count > Self.limit, let oldest = tracks.min(by: { $0.value.used < $1.value.used })?.key {
                    tracks[oldest] = nil
                }
            }
            condition.broadcast()
            condition.unlock()
        }
        made = try make()
        return made!
    }
}
