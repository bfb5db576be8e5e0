import FleetStore
import Foundation
import Platform

/// The devices an operator admitted with `airloc collect register` (table
/// `registered_devices`, schema 9): with `[collect] devices = known` the collector takes
/// messages from these devices only, so a fleet on a broker without ACLs is closed to
/// made-up device ids.
///
/// Contract: a device is registered by its name (``DeviceIdentity/isValidName(_:)``), once;
/// registering it again changes nothing, unregistering one that is not registered says so.
/// The collector reads the list when it connects and every 30 s after.
public enum RegisteredDevices {
    /// Every registered device.
    static func all(_ database: PostgresConnection) throws(DatabaseError) -> Set<String> {
        Set(try database.execute("SELECT device_id FROM registered_devices").compactMap { $0.first ?? nil })
    }

    /// What `register` or `unregister` did: the devices it changed and those already as asked.
    public struct Outcome: Sendable, Equatable {
        /// Devices registered (or unregistered) now.
        public var changed: [String]
        /// Devices that were so already.
        public var unchanged: [String]
    }

    /// Registers `devices` in the database `plan` names (making or migrating its schema).
    public static func register(_ devices: [String], plan: CollectorPlan) throws(DatabaseError) -> Outcome {
        try change(devices, plan: plan) { database, device throws(DatabaseError) in
            try !database.execute(
                "INSERT INTO registered_devices (device_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING device_id",
                [device]
            ).isEmpty
        }
    }

    /// Takes `devices` off the list: their messages are refused from the collector's next read.
    public static func unregister(_ devices: [String], plan: CollectorPlan) throws(DatabaseError) -> Outcome {
        try change(devices, plan: plan) { database, device throws(DatabaseError) in
            try !database.execute("DELETE FROM registered_devices WHERE device_id = $1 RETURNING device_id", [device])
                .isEmpty
        }
    }

    /// The devices registered now, sorted.
    public static func list(plan: CollectorPlan) throws(DatabaseError) -> [String] {
        let database = try PostgresConnection(
            conninfo: plan.conninfo, password: plan.password, connectTimeout: plan.connectTimeout)
        defer { database.close() }
        try CollectorSchema.prepare(database)
        return try all(database).sorted()
    }

    private static func change(
        _ devices: [String], plan: CollectorPlan,
        _ body: (PostgresConnection, String) throws(DatabaseError) -> Bool
    ) throws(DatabaseError) -> Outcome {
        let database = try PostgresConnection(
            conninfo: plan.conninfo, password: plan.password, connectTimeout: plan.connectTimeout)
        defer { database.close() }
        try CollectorSchema.prepare(database)
        var outcome = Outcome(changed: [], unchanged: [])
        try database.transaction { () throws(DatabaseError) in
            for device in devices {
                if try body(database, device) {
                    outcome.changed.append(device)
                } else {
                    outcome.unchanged.append(device)
                }
            }
        }
        return outcome
    }
}
