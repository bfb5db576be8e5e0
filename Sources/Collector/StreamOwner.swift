/// Whose rows a stream of the ledger holds: a device's logbook of one incarnation. A
/// logbook deleted and made again starts its ids at `t1` again under a new incarnation,
/// so the collector keys every row, acknowledgement and gap on the pair, never the device
/// alone.
///
/// Contract: written `device` for the empty incarnation (a logbook made before
/// incarnations: its rows keep the identity they were stored under) and
/// `device#incarnation` otherwise. `#` is never in a device id (it cannot be in an MQTT
/// topic name), so ``split(_:)`` gives back exactly what ``name(device:incarnation:)`` was given.
public enum StreamOwner {
    /// The owner's name.
    public static func name(device: String, incarnation: String) -> String {
        incarnation.isEmpty ? device : "\(device)#\(incarnation)"
    }

    /// The device and incarnation of an owner's name.
    public static func split(_ owner: String) -> (device: String, incarnation: String) {
        guard let mark = owner.firstIndex(of: "#") else { return (owner, "") }
        return (String(owner[..<mark]), String(owner[owner.index(after: mark)...]))
    }
}
