/// When each device's acknowledgement goes out: after a commit that moved it, at most once
/// a second per device however many batches touched it, as a pure rule.
///
/// Contract:
/// - ``owe(_:)`` marks a stream's acknowledgement as moved; ``take(at:force:)`` hands over
///   those whose last went out a second or more ago (all of them with `force`), and says
///   how long until the next is due.
/// - What went out is remembered a minute (``prune(at:)``): a device quiet longer may be
///   told again at once.
struct AckPacing: Sendable {
    /// The least time between two acknowledgements of one stream.
    static let every: Duration = .seconds(1)
    /// The streams whose acknowledgement moved and is not published yet.
    private(set) var owed = Set<String>()
    private var last: [String: ContinuousClock.Instant] = [:]

    /// Nothing is owed.
    var isEmpty: Bool { owed.isEmpty }

    /// `owner`'s acknowledgement moved.
    mutating func owe(_ owner: String) { owed.insert(owner) }

    /// These streams' acknowledgements moved.
    mutating func owe<Owners: Sequence>(_ owners: Owners) where Owners.Element == String { owed.formUnion(owners) }

    /// Whether `owner`'s acknowledgement waits to go out.
    func owes(_ owner: String) -> Bool { owed.contains(owner) }

    /// Nothing is owed any more (a new connection: what was read is read again).
    mutating func forgetOwed() { owed = [] }

    /// The streams due at `now` (every one owed with `force`), in order and marked as
    /// sent, and the pause until the next one is due (nil: none waits).
    mutating func take(at now: ContinuousClock.Instant, force: Bool) -> (owners: [String], wake: Duration?) {
        var due: [String] = []
        var soonest: Duration?
        for owner in owed.sorted() {
            if !force, let last = last[owner], now - last < Self.every {
                let left = Self.every - (now - last)
                soonest = min(soonest ?? left, left)
                continue
            }
            sent(owner, at: now)
            due.append(owner)
        }
        return (due, soonest)
    }

    /// `owner`'s acknowledgement went out at `now` (whether it was owed or not).
    mutating func sent(_ owner: String, at now: ContinuousClock.Instant) {
        owed.remove(owner)
        last[owner] = now
    }

    /// Forgets when acknowledgements went out more than a minute ago.
    mutating func prune(at now: ContinuousClock.Instant) {
        last = last.filter { now - $0.value < .seconds(60) }
    }
}
