import Foundation
import Platform
import Synchronization

/// How many wrong passwords a client address may send: `airloc serve`'s answer to a client
/// guessing HTTP Basic passwords (docs/serve.md, "Security model").
///
/// Contract:
/// - A client address that sent ``limit`` wrong (or missing-and-then-wrong) passwords
///   within a minute is refused with 429 and `Retry-After` until that minute is over,
///   whatever it sends meanwhile — the right password too; other addresses are not
///   touched.
/// - The first refusal of an address in a minute is said once (``ServiceNotice``), with
///   the address and no password.
/// - It remembers at most ``remembered`` addresses; past that, those whose minute is over
///   are forgotten first, and a new address beyond even that is not counted (it can still
///   only guess at the pace of the connections it may open).
final class PasswordGate: Sendable {
    /// Wrong passwords a minute per client address.
    static let limit = 10
    /// Addresses remembered at most.
    static let remembered = 10_000

    private struct Count {
        var since: Date
        var wrong: Int
        var said = false
    }
    private let counts = Mutex<[String: Count]>([:])
    private let notify: @Sendable (ServiceNotice) -> Void

    init(notify: @escaping @Sendable (ServiceNotice) -> Void = { _ in }) { self.notify = notify }

    /// Seconds `client` must wait before its password is looked at again (nil: it may try).
    func refusal(of client: String, at now: Date) -> Int? {
        counts.withLock { counts in
            guard let count = counts[client], count.wrong >= Self.limit else { return nil }
            let left = 60 - now.timeIntervalSince(count.since)
            guard left > 0 else {
                counts[client] = nil
                return nil
            }
            return Int(left.rounded(.up))
        }
    }

    /// `client` sent a wrong password at `now`.
    func wrong(from client: String, at now: Date) {
        let say: Bool = counts.withLock { counts in
            if counts.count >= Self.remembered {
                counts = counts.filter { now.timeIntervalSince($0.value.since) < 60 }
                guard counts.count < Self.remembered else { return false }
            }
            var count = counts[client] ?? Count(since: now, wrong: 0)
            if now.timeIntervalSince(count.since) >= 60 { count = Count(since: now, wrong: 0) }
            count.wrong += 1
            let first = count.wrong >= Self.limit && !count.said
            if first { count.said = true }
            counts[client] = count
            return first
        }
        if say {
            notify(
                .warning(
                    "\(Self.limit) wrong passwords from \(client) within a minute: refusing it (429) until the minute is over",
                    from: .serve))
        }
    }
}

/// Where a server's notices go once its service runs (the routes are made before).
final class NoticeRelay: Sendable {
    private let target = Mutex<(@Sendable (ServiceNotice) -> Void)?>(nil)
    init() {}
    func connect(_ notify: @escaping @Sendable (ServiceNotice) -> Void) { target.withLock { $0 = notify } }
    func say(_ notice: ServiceNotice) { target.withLock { $0 }?(notice) }
}
