import FleetWire
import Foundation

/// The collector alone (outside a share group) reads what the database holds of a device
/// before it tells the device anything: its memory is a cache of the database, never the
/// word itself.
///
/// Contract:
/// - On every new connection to the database (the first, and every reconnect: a server
///   that came back from a backup or a failover may hold less than was acknowledged), the
///   ledger is emptied; a device is read again with the next batch that holds its rows or
///   its hello (``CollectorMachine/Batch/read``), before the rows are written.
/// - Until then nothing is acknowledged to it, its hello's check waits, and its rows are
///   stored as rows that may be stored already.
/// - A device quiet for ``CollectorMachine/quietAfter`` with nothing pending is forgotten
///   and read again when it comes back, so that memory follows the devices heard, not every
///   device ever seen.
extension CollectorMachine {
    /// `device`'s streams are to be read with the next batch.
    mutating func needsReading(_ device: String) {
        if !known.isRead(device) { toRead.insert(device) }
    }

    /// `device` said `hello`: checked against what is stored at once when its streams were
    /// read on this connection, else once they are; in a share group, once this member
    /// holds the device's lease (``GroupMember``).
    mutating func heard(
        _ hello: CollectorMessages.Hello, device: String, update: inout RowStore.DeviceUpdate, date: Date
    ) -> [Action] {
        update.software = hello.software
        known.setIncarnation(hello.incarnation, of: device)
        update.incarnation = hello.incarnation
        let owner = StreamOwner.name(device: device, incarnation: hello.incarnation)
        if isShared {
            ownership.wait(hello, device: device, owner: owner)
        } else if known.isRead(device) {
            return check(hello, device: device, owner: owner, update: &update, date: date)
        } else {
            deferredHellos[device, default: []].append((hello, owner))
            needsReading(device)
        }
        return []
    }

    /// A new connection: what was read came from another connection (maybe another server).
    mutating func forgetWhatWasRead() {
        ledger = StoreLedger()
        known.forgetReading()
        acks.forgetOwed()
        toRead = Set(waiting.rows.map(\.device)).union(waiting.updates.keys).union(deferredHellos.keys)
    }

    /// The store read `batch.read`'s streams (`streams`) before it wrote the batch: they
    /// join the ledger, and the hellos that waited for them are checked now.
    mutating func read(
        _ batch: Batch, streams: [StoreLedger.StreamKey: (through: Int64, above: [Int64])],
        at now: ContinuousClock.Instant, date: Date
    ) -> [Action] {
        guard !batch.read.isEmpty else { return [] }
        for (key, stream) in streams.sorted(by: { $0.key < $1.key }) {
            ledger.loaded(
                device: key.device, kind: key.kind, through: stream.through, storedAbove: stream.above, at: now)
        }
        known.markRead(batch.read)
        toRead.subtract(batch.read)
        var actions: [Action] = []
        for device in batch.read {
            // Every device read is told what is stored now (its retained ack may be older).
            for owner in ledger.owners(of: device) { ledger.markDue(owner) }
            guard let hellos = deferredHellos.removeValue(forKey: device), let prefix = known.prefix(of: device) else {
                continue
            }
            // A hello checked now is what the device said before (often the broker's retained
            // one, handed over at the subscription): it says nothing of the device now, so it
            // never moves `last_seen` (a collector's restart moved it for devices switched off).
            var update = waiting.updates[device] ?? RowStore.DeviceUpdate(prefix: prefix, seen: date, heard: false)
            for (hello, owner) in hellos {
                actions += check(hello, device: device, owner: owner, update: &update, date: date)
            }
            waiting.updates[device] = update
        }
        return actions
    }
}
