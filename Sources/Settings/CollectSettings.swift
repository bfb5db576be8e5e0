/// `[collect]`: the fleet collector, `airloc collect` (docs/collector.md): which broker it
/// reads every device's rows from and which PostgreSQL database it stores them in.
///
/// Contract: `AIRLOC_COLLECT_BROKER` and `AIRLOC_COLLECT_DATABASE` override `broker` and
/// `database`. The password is read from `password-file` (which must be 0600) when it is
/// set, else libpq finds its own (`PGPASSFILE`, `~/.pgpass`); it is never logged. The
/// broker's credentials and TLS files are the `[mqtt]` keys of the same names under
/// `[collect]`.
public struct CollectSettings: Sendable, Equatable {
    /// The broker: `broker` (its URL), `ca-file`, `cert-file`, `key-file`, `username`,
    /// `broker-password-file` (0600) and `client-id` (default `airloc-collect-<host>`).
    public var broker = BrokerSettings()
    /// A libpq connection string or a postgresql:// URI.
    public var database: String?
    /// A file (0600) holding the database password; nil: libpq's PGPASSFILE or ~/.pgpass.
    public var passwordFile: String?
    /// The topic levels in front of every device's topics; `+` stands for the device id.
    public var topicPrefix = "airloc/+"
    /// Rows written per transaction at most.
    public var batch = 500
    /// Where the collector serves its `/metrics` (`[collect] metrics = HOST:PORT`; nil:
    /// nowhere). The metrics hold counts, never a row or a position.
    public var metricsHost: String?
    /// Its port.
    public var metricsPort = 0
    /// Seconds of rows kept: older months are dropped whole (nil: all are kept).
    public var keep: Double?
    /// Seconds of the hourly roll-up kept (nil: all of it).
    public var keepHourly: Double?
    /// The group of collectors this one shares the devices' rows with (`$share/GROUP/…`);
    /// nil: it reads every row itself.
    public var share: String?
    /// Bytes a message may weigh at most: a larger one is refused before it is decoded.
    public var maxMessage = 65_536
    /// Which devices' messages are taken: every device's, or only the devices registered
    /// with `airloc collect register` (for a broker without ACLs).
    public var devices = Admission.any

    /// Which devices the collector takes messages from.
    public enum Admission: String, Sendable, CaseIterable {
        /// Any device id the topic names (a valid one).
        case any
        /// Only registered devices (`airloc collect register DEVICE`).
        case known
    }

    /// The defaults (docs/collector.md).
    public init() {}

    /// The device id in `topic` (`airloc/pi-7/history` → `pi-7`) when it is one of
    /// `topicPrefix`'s, with the rest (`history`); nil otherwise.
    public func device(inTopic topic: String) -> (device: String, rest: String)? {
        let pattern = topicPrefix.split(separator: "/", omittingEmptySubsequences: false)
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count == pattern.count + 1 else { return nil }
        var device: Substring?
        for (want, level) in zip(pattern, levels) {
            if want == "+" {
                guard !level.isEmpty else { return nil }
                device = device ?? level
            } else if want != level {
                return nil
            }
        }
        guard let device = device ?? pattern.last.map({ _ in levels[pattern.count - 1] }) else { return nil }
        return (String(device), String(levels[pattern.count]))
    }
}
