import FleetWire
import Foundation

/// What the collector tells each device: its acknowledgement (what is stored of each
/// stream) and the gaps it asks for again.
///
/// Contract:
/// - A device's acknowledgement is published after a commit that moved it, at most once a
///   second per device (``AckPacing``); on every (re)connection every known device's is
///   published again.
/// - Alone, a device is told only what was read from this database (never an empty
///   ledger's zeros); in a share group, only by the one member that holds its lease; only
///   its current incarnation's.
/// - Gaps are asked for as ``StoreLedger`` decides, each of a device this collector (or
///   this member) acknowledges.
extension CollectorMachine {
    /// Publishes the pending acknowledgements a second or more after each device's last.
    mutating func flushAcks(at now: ContinuousClock.Instant, date: Date, force: Bool) -> [Action] {
        guard !acks.isEmpty, broker.isConnected else { return [] }
        let (owners, wake) = acks.take(at: now, force: force)
        return owners.compactMap { acknowledgement($0, at: now, date: date) } + (wake.map { [.wake(after: $0)] } ?? [])
    }

    /// On a (re)connection, every known device hears again what is stored.
    mutating func acknowledgeAll(at now: ContinuousClock.Instant, date: Date) -> [Action] {
        ledger.devices.compactMap { device in
            guard !isShared || ownership.owns(StreamOwner.split(device).device, at: now) else { return nil }
            acks.sent(device, at: now)
            return acknowledgement(device, at: now, date: date)
        }
    }

    mutating func acknowledgement(_ owner: String, at now: ContinuousClock.Instant, date: Date) -> Action? {
        let (device, incarnation) = StreamOwner.split(owner)
        guard let prefix = known.prefix(of: device) else { return nil }
        // Alone, a device is told only what was read from this database: never an empty
        // ledger's zeros, which would take back what it was told before.
        if !isShared && !known.isRead(device) { return nil }
        // In a share group only the device's one owner says it: two members' words could
        // reach the broker in either order.
        if isShared && !ownership.owns(device, at: now) { return nil }
        // The retained acknowledgement is the current incarnation's: an older one's would
        // replace it, and the device ignores it anyway.
        if let current = known.incarnation(of: device), current != incarnation { return nil }
        let ack = ledger.acknowledgement(for: owner)
        // What was told matters to a member only: its view is read again every second.
        if isShared { ownership.told(ack) }
        state.acksPublished += 1
        let message = CollectorMessages.Ack(
            through: ack.through, revised: ack.revised, time: date, incarnation: incarnation, stored: ack.stored)
        return .publish(topic: "\(prefix)/ack", payload: message.json, retain: true)
    }

    /// The gaps to ask for now (``StoreLedger``), and a wake for the next one.
    mutating func replays(at now: ContinuousClock.Instant) -> [Action] {
        var actions: [Action] = []
        for request in ledger.due(at: now) {
            let (device, incarnation) = StreamOwner.split(request.device)
            // A member asks only for its own devices' gaps: another's stream is not whole here.
            guard let prefix = known.prefix(of: device), !isShared || ownership.owns(device, at: now) else {
                continue
            }
            let message = CollectorMessages.Replay(
                kind: request.kind, from: request.from, until: request.until, incarnation: incarnation)
            actions.append(.publish(topic: "\(prefix)/replay", payload: message.json, retain: false))
            state.replaysAsked += 1
        }
        if let next = ledger.nextReplay(after: now), next > .zero { actions.append(.wake(after: next)) }
        return actions
    }
}
