import FleetWire

/// Which devices a collector of a `[collect] share` group acknowledges, and what it last
/// told each: the member's side of ``ShareGroup``'s leases, kept by ``CollectorMachine``.
///
/// Contract (pure; time is passed in):
/// - A device is owned from a round that granted its lease until ``ShareGroup/lease`` less
///   ``ShareGroup/margin`` after that round's start (a round's start is before the
///   database's clock read the lease), and no longer once a round did not grant it.
/// - An acknowledgement is due for an owned stream owner when it differs from the last
///   one published to it, and only then: a view read every second moves nothing by itself.
/// - A device's hello waits for the database's view of the device (``waitingHellos(at:)``),
///   since no member's memory knows what the group stored; a newer hello replaces it.
struct AckOwnership: Sendable {
    private var until: [String: ContinuousClock.Instant] = [:]
    private var published: [String: StoreLedger.Acknowledgement] = [:]
    private var hellos: [String: (device: String, hello: CollectorMessages.Hello)] = [:]

    /// Whether `device`'s acknowledgements are this member's to publish at `now`.
    func owns(_ device: String, at now: ContinuousClock.Instant) -> Bool {
        guard let until = until[device] else { return false }
        return now < until
    }

    /// A round that started at `started` was granted `owned`.
    mutating func granted(_ owned: Set<String>, roundStarted started: ContinuousClock.Instant) {
        let end = started + .seconds(ShareGroup.lease) - ShareGroup.margin
        until = Dictionary(uniqueKeysWithValues: owned.map { ($0, end) })
    }

    /// Whether `ack` tells its stream owner something it was not told yet.
    func isNews(_ ack: StoreLedger.Acknowledgement) -> Bool { published[ack.device] != ack }

    /// `ack` was published.
    mutating func told(_ ack: StoreLedger.Acknowledgement) { published[ack.device] = ack }

    /// Forgets what was told to `devices` (quiet ones, forgotten by the machine).
    mutating func forget(_ devices: Set<String>) {
        published = published.filter { !devices.contains(StreamOwner.split($0.key).device) }
    }

    /// `owner`'s hello, to be checked against the database's view of `device`.
    mutating func wait(_ hello: CollectorMessages.Hello, device: String, owner: String) {
        hellos[owner] = (device, hello)
    }

    /// The hellos of the devices owned at `now` (each given once).
    mutating func waitingHellos(at now: ContinuousClock.Instant) -> [(
        owner: String, device: String, hello: CollectorMessages.Hello
    )] {
        let due = hellos.filter { owns($0.value.device, at: now) }.sorted { $0.key < $1.key }
        for (owner, _) in due { hellos[owner] = nil }
        return due.map { ($0.key, $0.value.device, $0.value.hello) }
    }
}
