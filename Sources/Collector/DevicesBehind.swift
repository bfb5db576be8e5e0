import FleetWire
import Foundation

/// The devices whose rows do not reach this collector's store: a device says (its hello's
/// `last`), or the rows stored above a gap show, that it holds rows the store lacks, and
/// the store's `through` has not moved since.
///
/// Why: the collector cannot see rows that never reach it. Another subscriber in its
/// `[collect] share` group takes them, or an ACL drops them, and the collector and its
/// database are healthy while a device's backlog grows. The device says its hello again
/// when its rows go unacknowledged for 20 s (``AckWatch``), so what it holds is news here
/// even when none of its rows is.
///
/// Contract (pure; dates are passed in):
/// - ``claimed(_:by:)`` keeps a hello's `last` (the latest hello's word replaces the one
///   before; a new incarnation's makes the old one's irrelevant).
/// - ``look(at:reach:date:)``, after what the store holds of the owner changed or was
///   claimed: the owner is behind from `date` when a kind's claim or highest stored id is
///   above its `through`; a `through` that moved restarts the wait (rows are arriving,
///   only slowly: a backlog being drained); none above ends it.
/// - ``behind`` lists when each behind device's wait began; a device is reported
///   (`/metrics`, `collect status`) once that is ``after`` old.
/// - ``reset()`` forgets every wait while the database is down: nothing moves then, and
///   ``StoreFault`` says why.
struct DevicesBehind: Sendable {
    /// How long a device's rows may not move before it is reported: gaps are asked for
    /// after 10 s and are normally filled a moment later.
    static let after: TimeInterval = 30
    /// How many devices are kept behind at most (anyone may say a hello on a broker
    /// without ACLs); the newest waits go first.
    static let kept = 64

    private var claims: [String: [RowKind: Int64]] = [:]
    private var waits: [String: (throughs: [RowKind: Int64], since: Date)] = [:]

    /// `owner` (a device's logbook of one incarnation) holds rows through `last`, per kind.
    mutating func claimed(_ last: [RowKind: Int64], by owner: String) {
        let device = StreamOwner.split(owner).device
        for other in claims.keys where other != owner && StreamOwner.split(other).device == device {
            claims[other] = nil
            waits[other] = nil
        }
        claims[owner] = last.isEmpty ? nil : last
    }

    /// What the store holds of `owner` (``StoreLedger/reach(of:)``) at `date`.
    mutating func look(at owner: String, reach: [RowKind: (through: Int64, highest: Int64)], date: Date) {
        let claim = claims[owner] ?? [:]
        var throughs: [RowKind: Int64] = [:]
        var behind = false
        for kind in RowKind.allCases {
            let through = reach[kind]?.through ?? 0
            throughs[kind] = through
            if max(claim[kind] ?? 0, reach[kind]?.highest ?? 0) > through { behind = true }
        }
        guard behind else {
            waits[owner] = nil
            return
        }
        if let wait = waits[owner], wait.throughs == throughs { return }
        waits[owner] = (throughs, date)
        if waits.count > Self.kept, let newest = waits.max(by: { $0.value.since < $1.value.since })?.key {
            waits[newest] = nil
        }
    }

    /// Forgets `device` (all its incarnations): quiet, forgotten by the collector, or no
    /// longer this member's to acknowledge.
    mutating func forget(device: String) {
        for owner in Set(claims.keys).union(waits.keys) where StreamOwner.split(owner).device == device {
            claims[owner] = nil
            waits[owner] = nil
        }
    }

    /// Forgets every wait (claims are kept: the next look starts a wait afresh).
    mutating func reset() { waits.removeAll() }

    /// `device` said it is offline: its rows cannot arrive until it is back, which its
    /// hello says; its waits end.
    mutating func rest(device: String) {
        for owner in waits.keys where StreamOwner.split(owner).device == device { waits[owner] = nil }
    }

    /// When each device's wait began (the earliest of its incarnations').
    var behind: [String: Date] {
        var devices: [String: Date] = [:]
        for (owner, wait) in waits {
            let device = StreamOwner.split(owner).device
            devices[device] = min(devices[device] ?? wait.since, wait.since)
        }
        return devices
    }

    /// The devices of `behind` waiting for ``after`` at `now`, and the longest wait.
    static func reported(_ behind: [String: Date], at now: Date) -> (devices: [String], longest: TimeInterval) {
        let late = behind.filter { now.timeIntervalSince($0.value) >= after }
        return (late.keys.sorted(), late.values.map { now.timeIntervalSince($0) }.max() ?? 0)
    }
}
