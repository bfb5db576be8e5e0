import FleetStore
import Foundation
import Platform

/// What ``CollectorMachine`` asks its driver to do, and what one transaction stores: the
/// machine's whole vocabulary towards the database, the broker and the journal.
extension CollectorMachine {
    /// What the driver does.
    public enum Action: Sendable {
        case connectDatabase
        /// Read the registered devices again (`[collect] devices = known`).
        case readRegistered
        /// Store these rows, device updates and acknowledged ids in one transaction.
        case store(Batch)
        case subscribe([String])
        case publish(topic: String, payload: String, retain: Bool)
        case pauseBroker
        case resumeBroker
        case say(ServiceNotice)
        /// Be woken after this pause (the batch's window, a retry, a paced acknowledgement).
        case wake(after: Duration)
        /// The collector cannot run: a configuration or the system, retrying cannot help.
        case fail(ServiceFailure)
        /// Devices were forgotten: give the memory they held back to the system.
        case releaseMemory
    }

    /// What one transaction stores.
    public struct Batch: Sendable {
        /// The rows, newest revision of each key.
        public var rows: [DeviceRow]
        /// What is known of each device from this batch.
        public var devices: [String: RowStore.DeviceUpdate]
        /// Each stream's `through`, kept so that a restart starts there.
        public var throughs: [StoreLedger.StreamKey: Int64]
        /// In a `[collect] share` group, the devices the rows are of (nil: not in a group).
        public var share: [String]? = nil
        /// In a group: after the rows, take the acknowledgement leases and read back what
        /// the database holds (``ShareGroup``): at most once a second, not after every batch.
        public var round = false
        /// Devices whose streams the store reads before the rows (``StreamReading``).
        public var read: [String] = []
    }
}
