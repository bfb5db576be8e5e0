import Foundation
import Platform

#if canImport(Glibc)
    import Glibc
#endif

/// How many wrong passwords a client address may send: `airloc serve`'s answer to a client
/// guessing HTTP Basic passwords (docs/serve.md, "Security model").
///
/// Contract:
/// - A client (an IPv4 address, or an IPv6 /64: one host may hold any number of addresses
///   of its /64) that sent ``limit`` wrong passwords within a minute is refused with 429
///   and `Retry-After` until that minute is over, whatever it sends meanwhile — the right
///   password too; other clients are not touched.
/// - It fails closed, so that it cannot be filled: past ``ceiling`` wrong passwords a
///   minute from all clients together, or with ``remembered`` clients in its table (those
///   whose minute is over forgotten first), every client is refused until the minute is
///   over. A guesser with many addresses then locks the page for a minute at a time; it
///   never gets more guesses.
/// - A client's first refusal in a minute is said once (``ServiceNotice``), with the
///   client and no password; an episode of the global refusal is said once.
final class PasswordGate: Sendable {
    /// Wrong passwords a minute per client.
    static let limit = 10
    /// Wrong passwords a minute from all clients together.
    static let ceiling = 300
    /// Clients remembered at most.
    static let remembered = 10_000

    private struct Count {
        var since: Date
        var wrong: Int
        var said = false
    }
    private struct Table {
        var counts: [String: Count] = [:]
        /// All clients' wrong passwords in the minute from `since`.
        var all = Count(since: .distantPast, wrong: 0)
        /// Full (or past the ceiling) until this time: every client refused.
        var closedUntil: Date?
    }
    private let table = Lock(Table())
    private let notify: @Sendable (ServiceNotice) -> Void

    init(notify: @escaping @Sendable (ServiceNotice) -> Void = { _ in }) { self.notify = notify }

    /// The client a request's address counts as: an IPv6 address's /64, an IPv4 address
    /// (also when mapped into IPv6) as it is.
    static func client(_ address: String) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard address.contains(":"), inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return bytes[12..<16].map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map {
            String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
        }
        return groups.joined(separator: ":") + "::/64"
    }

    /// Seconds `address` must wait before its password is looked at again (nil: it may try).
    func refusal(of address: String, at now: Date) -> Int? {
        let client = Self.client(address)
        return table.withLock { table in
            if let until = table.closedUntil {
                if now < until { return Int(until.timeIntervalSince(now).rounded(.up)) }
                table.closedUntil = nil
            }
            guard let count = table.counts[client], count.wrong >= Self.limit else { return nil }
            let left = 60 - now.timeIntervalSince(count.since)
            guard left > 0 else {
                table.counts[client] = nil
                return nil
            }
            return Int(left.rounded(.up))
        }
    }

    /// `address` sent a wrong password at `now`.
    func wrong(from address: String, at now: Date) {
        let client = Self.client(address)
        let said: String? = table.withLock { table in
            if now.timeIntervalSince(table.all.since) >= 60 { table.all = Count(since: now, wrong: 0) }
            table.all.wrong += 1
            var full = false
            if table.counts[client] == nil && table.counts.count >= Self.remembered {
                table.counts = table.counts.filter { now.timeIntervalSince($0.value.since) < 60 }
                full = table.counts.count >= Self.remembered
            }
            if full || table.all.wrong > Self.ceiling {
                let first = table.closedUntil == nil && !table.all.said
                table.closedUntil = table.all.since.addingTimeInterval(60)
                if full { table.closedUntil = max(table.closedUntil!, now.addingTimeInterval(60)) }
                table.all.said = true
                return first
                    ? "more wrong passwords than \(Self.ceiling) a minute, or from more than \(Self.remembered) "
                        + "clients: refusing every password (429) for a minute" : nil
            }
            var count = table.counts[client] ?? Count(since: now, wrong: 0)
            if now.timeIntervalSince(count.since) >= 60 { count = Count(since: now, wrong: 0) }
            count.wrong += 1
            let first = count.wrong >= Self.limit && !count.said
            if first { count.said = true }
            table.counts[client] = count
            return first
                ? "\(Self.limit) wrong passwords from \(client) within a minute: refusing it (429) until the minute is over"
                : nil
        }
        if let said { notify(.warning(said, from: .serve)) }
    }
}

/// Where a server's notices go once its service runs (the routes are made before).
final class NoticeRelay: Sendable {
    private let target = Lock<(@Sendable (ServiceNotice) -> Void)?>(nil)
    init() {}
    func connect(_ notify: @escaping @Sendable (ServiceNotice) -> Void) { target.withLock { $0 = notify } }
    func say(_ notice: ServiceNotice) { target.withLock { $0 }?(notice) }
}
