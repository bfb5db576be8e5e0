import Foundation

/// The collector forgets the devices it no longer hears: made-up ids on a broker without
/// ACLs, or devices switched off for good, do not hold its memory for ever.
///
/// Contract: once a minute, a device that sent nothing for ``CollectorMachine/quietAfter``
/// and has nothing pending (no row or news waiting, no reading to do, no acknowledgement
/// owed, no gap asked for) is forgotten: its name, topic and incarnation, and (alone) its
/// ledger, read again from the database when it comes back. In a share group a device with
/// a ledger is kept (the view of its lease holder's rounds keeps it).
extension CollectorMachine {
    /// A device that sent no row, and nothing for this long, is forgotten.
    static let quietAfter: Duration = .seconds(600)

    /// Forgets, once a minute, the devices quiet for ``quietAfter`` with nothing pending:
    /// their names, topics, incarnations and (alone) their ledger, read again from the
    /// database when they come back. In a group, a device with a ledger is kept (the view
    /// of its lease holder's rounds keeps it).
    mutating func forgetQuiet(at now: ContinuousClock.Instant) -> [Action] {
        if let lastSweep, now - lastSweep < .seconds(60) { return [] }
        lastSweep = now
        let held = Set(waiting.rows.map(\.device))
        let quiet = known.quiet(at: now, after: Self.quietAfter) { device in
            waiting.updates[device] != nil || held.contains(device) || toRead.contains(device)
                || ledger.owners(of: device).contains(where: acks.owes)
                // Alone, a device is read again when it comes back; in a group, the view says it.
                || (isShared ? ledger.holds(device: device) : ledger.hasGap(device: device))
        }
        acks.prune(at: now)
        guard !quiet.isEmpty else { return [] }
        for device in quiet {
            known.forget(device)
            behind.forget(device: device)
            if !isShared { ledger.forget(device: device) }
        }
        if isShared { ownership.forget(Set(quiet)) }
        return [.releaseMemory]
    }
}
