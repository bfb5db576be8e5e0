/// The devices `[collect] devices = known` admits, as the collector last read them from
/// the database, and when to read them again.
///
/// Contract: read again every ``every`` while the database is up, so a device registered
/// meanwhile is taken within that long; until the first reading none is admitted.
struct RegisteredList: Sendable {
    /// How often the list is read again.
    static let every: Duration = .seconds(30)
    /// The devices as last read.
    private(set) var devices = Set<String>()
    private var readAt: ContinuousClock.Instant?

    /// The database holds `devices` now.
    mutating func read(_ devices: Set<String>, at now: ContinuousClock.Instant) {
        self.devices = devices
        readAt = now
    }

    /// The pause until the next reading is due at `now`; nil: it is due, and counted as
    /// asked for now (a reading is under way).
    mutating func due(at now: ContinuousClock.Instant) -> Duration? {
        if let readAt, now - readAt < Self.every { return readAt + Self.every - now }
        readAt = now
        return nil
    }
}
