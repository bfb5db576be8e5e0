import FleetWire

/// One `[upload.NAME]` section: a server the logbook's rows are forwarded to, store and
/// forward (docs/uploads.md).
///
/// Contract: `position` unset means the type's default: `exact` for the servers people
/// run for themselves (OwnTracks, Traccar), `coarse` (the `[privacy] outbound-precision`
/// grid) for the public maps (sensor.community, openSenseMap). Whether a section is
/// complete for its type is checked when the uploads start (`UploadPlan` in module
/// `Uploads`), with the section's name in the message.
public struct UploadSettings: Sendable, Equatable {
    /// The servers an upload can go to.
    public enum Kind: String, Sendable, CaseIterable {
        case owntracksMQTT = "owntracks-mqtt"
        case owntracksHTTP = "owntracks-http"
        case traccar
        case sensorCommunity = "sensor-community"
        case openSenseMap = "opensensemap"

        /// A public map: what it receives is published to everyone.
        public var isPublicMap: Bool { self == .sensorCommunity || self == .openSenseMap }

        /// The logbook's rows it takes: measured readings (`sensor`) for the public maps,
        /// which never receive the model's values; positions (`track`) for the others.
        public var rows: [RowKind] { isPublicMap ? [.sensor] : [.track] }
    }

    /// The section's name after `upload.` (`[upload.home]` → `home`).
    public var name: String
    /// The server's kind.
    public var type: Kind?
    /// Where it is.
    public var url: String?
    /// A file (0600) with the password or token.
    public var credentialsFile: String?
    /// OwnTracks' user.
    public var user: String?
    /// OwnTracks' device.
    public var device: String?
    /// Traccar's device identifier (default: the device id).
    public var id: String?
    /// openSenseMap's box id.
    public var box: String?
    /// openSenseMap's sensor id per value (`pm2_5` → `5f…`), from the `sensor-<value>` keys.
    public var sensors: [String: String] = [:]
    /// What of the position goes (the type's default when nil).
    public var position: MQTTSettings.Position?
    /// Rows a request (openSenseMap).
    public var batch: Int?
    /// Rows older than this many seconds are not sent (0: every row); unset: the type's
    /// default, 15 minutes for sensor.community (it stamps readings on arrival), none else.
    public var maxAge: Double?
    /// `flagged = send`: readings airloc flagged (warm-up cut short, humid air) go too.
    /// Public maps get only unflagged readings by default: a map is read as the truth.
    public var sendFlagged = false

    /// A section `[upload.NAME]` with nothing set.
    public init(name: String) { self.name = name }

    /// What leaves the device: the section's `position`, else the type's default.
    public var resolvedPosition: MQTTSettings.Position {
        if let position { return position }
        return type?.isPublicMap == true ? .coarse : .exact
    }
}
