import FleetWire
import Foundation

/// The collector as a member of a `[collect] share` group (``ShareGroup``): the broker
/// hands each row to any member, so what a device is told is read from PostgreSQL, by the
/// one member that holds the device's acknowledgement lease.
///
/// Contract:
/// - A member goes to the database at least once a second while the database and the
///   broker are up, rows or not (a round): the batch it holds, then the leases and the view.
/// - Every row it stores may be stored already (another member may have stored it, or a
///   revision of it), so each is looked for as such; its ledger learns what is stored only
///   from the database's view, which holds what every member stored.
/// - A hello is checked (a restored database, the first ids) once the member owns the
///   device, against the database's view; ``check(_:device:owner:update:date:)`` is that
///   check, which a collector outside a group makes at once against its own ledger.
extension CollectorMachine {
    /// How often a member goes to the database with nothing to store.
    static let roundEvery: Duration = .seconds(1)

    /// How long until this member's next round (nil: it is due).
    func nextRound(at now: ContinuousClock.Instant) -> Duration? {
        guard let lastRound else { return nil }
        let left = lastRound + Self.roundEvery - now
        return left > .zero ? left : nil
    }

    /// A member's batch: `taken` (each marked as maybe stored), and the `through`s of the
    /// streams it stores in; a round (once a second) also takes the leases, reads the view
    /// and keeps the owned streams' `through`s, so that a restart starts there.
    mutating func sharedBatch(
        _ taken: inout [DeviceRow], devices: [String: RowStore.DeviceUpdate], at now: ContinuousClock.Instant
    ) -> Batch {
        let round = nextRound(at: now) == nil
        if round { lastRound = now }
        for index in taken.indices { taken[index].mayBeStored = true }
        let all = ledger.throughs
        var throughs = round ? all.filter { ownership.owns(StreamOwner.split($0.key.device).device, at: now) } : [:]
        // Every stream a commit stores in has its `acknowledged` row (the view reads from it).
        for row in taken {
            let key = StoreLedger.StreamKey(device: row.owner, kind: row.kind)
            throughs[key] = all[key] ?? 0
        }
        return Batch(
            rows: taken, devices: devices, throughs: throughs, share: Set(taken.map(\.device)).sorted(), round: round)
    }

    /// The database's view after a round that began at `started`.
    mutating func viewed(
        _ view: ShareView, roundStarted started: ContinuousClock.Instant, at now: ContinuousClock.Instant, date: Date
    )
        -> [Action]
    {
        ownership.granted(view.owned, roundStarted: started)
        state.leases = view.owned.count
        for (key, stream) in view.streams.sorted(by: { $0.key < $1.key }) {
            ledger.loaded(
                device: key.device, kind: key.kind, through: stream.through, storedAbove: stream.above, at: now)
        }
        for (owner, rows) in view.revised { ledger.revised(device: owner, rows) }
        // Only a device this member acknowledges is this member's to watch: the others'
        // rows go to the member that holds their lease.
        for owner in Set(view.streams.keys.map(\.device)) {
            let device = StreamOwner.split(owner).device
            if ownership.owns(device, at: now) {
                behind.look(at: owner, reach: ledger.reach(of: owner), date: date)
            } else {
                behind.forget(device: device)
            }
        }
        var actions: [Action] = []
        for waiting in ownership.waitingHellos(at: now) {
            guard
                var update = self.waiting.updates[waiting.device]
                    ?? known.prefix(of: waiting.device).map({ .init(prefix: $0, seen: date, heard: false) })
            else { continue }
            actions += check(waiting.hello, device: waiting.device, owner: waiting.owner, update: &update, date: date)
            self.waiting.updates[waiting.device] = update
        }
        for owner in Set(view.streams.keys.map(\.device)) where ownership.isNews(ledger.acknowledgement(for: owner)) {
            acks.owe(owner)
        }
        return actions
    }

    /// What `device`'s hello says against what is stored: a store that holds less than it
    /// acknowledged, and the first id of each kind still to come.
    mutating func check(
        _ hello: CollectorMessages.Hello, device: String, owner: String, update: inout RowStore.DeviceUpdate,
        date: Date
    ) -> [Action] {
        var actions: [Action] = []
        // A store that holds less than it acknowledged must not take the device's first
        // unstored id as the word that the ids below it are stored: it tells the device
        // what it holds instead, and the device sends the rest again.
        let forgot = ledger.forgot(device: owner, acked: hello.acked)
        if !forgot.isEmpty {
            update.rewound = date
            state.rewind(device, at: date)
            ledger.markDue(owner)
            actions.append(
                .say(
                    .warning(
                        "\(device)'s \(forgot.map(\.rawValue).joined(separator: ", ")) rows were acknowledged "
                            + "beyond what the database holds (restored from a backup?): asking for them again",
                        from: .collector)))
        }
        let first = hello.first.filter { !forgot.contains($0.key) }
        if ledger.declared(device: owner, first: first) != nil { ledger.markDue(owner) }
        behind.claimed(hello.last, by: owner)
        behind.look(at: owner, reach: ledger.reach(of: owner), date: date)
        return actions
    }
}
