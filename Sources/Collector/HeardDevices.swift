import FleetWire

/// The devices the collector has heard from, and what it keeps of each between messages:
/// its topics' prefix, its logbook's current incarnation, when it was last heard, whether
/// its streams were read from the database on this connection, and when it was last told
/// anything.
///
/// Why one dictionary: on a broker without ACLs anyone can make up device ids, and each
/// costs the collector what it keeps of it. Kept in one entry, with the prefix only where
/// it is not the one `[collect] topic-prefix` gives, a device costs about a third of what
/// five separate tables cost.
///
/// Contract: a device heard is kept until ``forget(_:)``; ``quiet(at:after:)`` names the
/// ones not heard for a while. Nothing here is the database's word: it is what this
/// collector heard.
struct HeardDevices: Sendable {
    struct Device: Sendable {
        /// The prefix, when it is not the one `[collect] topic-prefix` gives the device.
        var otherPrefix: String?
        /// The current incarnation, as its hello (or its first row) said.
        var incarnation: String?
        var heard: ContinuousClock.Instant
        /// Its streams were read from the database on this connection (alone).
        var read = false
    }

    private var devices: [String: Device] = [:]
    /// `[collect] topic-prefix` (`airloc/+`): the prefix of most devices is this with the
    /// device in place of the `+`.
    let pattern: String

    init(pattern: String) { self.pattern = pattern }

    /// How many devices are kept.
    var count: Int { devices.count }

    /// `device` was heard now on `prefix`.
    mutating func heard(_ device: String, prefix: String, at now: ContinuousClock.Instant) {
        let usual = prefix == Self.prefix(of: device, pattern: pattern)
        if var known = devices[device] {
            known.heard = now
            known.otherPrefix = usual ? nil : prefix
            devices[device] = known
        } else {
            devices[device] = Device(otherPrefix: usual ? nil : prefix, heard: now)
        }
    }

    /// `device`'s topics' prefix, or nil when it was not heard.
    func prefix(of device: String) -> String? {
        guard let known = devices[device] else { return nil }
        return known.otherPrefix ?? Self.prefix(of: device, pattern: pattern)
    }

    /// `device`'s current incarnation, when one was said.
    func incarnation(of device: String) -> String? { devices[device]?.incarnation }

    /// `device`'s current incarnation is `incarnation` (a device not heard is not kept).
    mutating func setIncarnation(_ incarnation: String, of device: String) {
        devices[device]?.incarnation = incarnation
    }

    /// Whether `device`'s streams were read on this connection.
    func isRead(_ device: String) -> Bool { devices[device]?.read ?? false }

    /// `devices`' streams were read (those heard).
    mutating func markRead(_ read: some Sequence<String>) {
        for device in read { devices[device]?.read = true }
    }

    /// A new connection: nothing was read on it yet.
    mutating func forgetReading() {
        for device in devices.keys { devices[device]?.read = false }
    }

    /// The devices not heard for `quiet` and that `keep` does not keep.
    func quiet(at now: ContinuousClock.Instant, after quiet: Duration, keep: (String) -> Bool) -> [String] {
        devices.compactMap { device, known in now - known.heard >= quiet && !keep(device) ? device : nil }
    }

    /// Forgets `device` entirely.
    mutating func forget(_ device: String) { devices[device] = nil }

    /// The prefix `pattern` gives `device` (its first `+` the device, any other `+` left).
    static func prefix(of device: String, pattern: String) -> String {
        guard let plus = pattern.range(of: "+") else { return pattern }
        return pattern.replacingCharacters(in: plus, with: device)
    }
}
