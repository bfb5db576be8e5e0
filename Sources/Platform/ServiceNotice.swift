/// What a running service has to say to the journal (stderr under systemd): the logger,
/// the publisher, an upload, the collector all speak through it.
///
/// Contract: never a precise position or a secret (the journal is readable by
/// administrators and often shipped elsewhere); the place name at most. `source` names
/// the part that speaks (`mqtt`, `collect`, `upload.NAME`; nil for the logger itself).
/// `remedy` names what can help, for the program that shows the notice to say in its own
/// words: a library's text carries no command-line advice.
public struct ServiceNotice: Sendable, Equatable, CustomStringConvertible {
    /// How much it matters.
    public enum Level: String, Sendable { case info, warning, error }

    /// What can help, named by the module that knows (``checkGPSD`` and ``checkSensor``
    /// for the logger, the section to look at for a service's configuration).
    public struct Remedy: Sendable, Hashable {
        /// Which remedy ("gpsd", "sensor", "setting").
        public var name: String
        /// The configuration to look at, when the remedy is a setting (`[collect] ca-file`).
        public var setting: String?

        /// A remedy named `name`, pointing at `setting` when there is one.
        public init(_ name: String, setting: String? = nil) {
            self.name = name
            self.setting = setting
        }

        /// gpsd or the receiver: a health check of them helps.
        public static let checkGPSD = Remedy("gpsd")
        /// The particulate sensor: a health check of it helps.
        public static let checkSensor = Remedy("sensor")
        /// A setting that cannot work as written.
        public static func check(_ setting: String) -> Remedy { Remedy("setting", setting: setting) }
    }

    /// How much it matters.
    public var level: Level
    /// What happened, in words a person can act on.
    public var message: String
    /// What can help, if anything.
    public var remedy: Remedy?
    /// The part that speaks (`mqtt`, `collect`); nil for the logger.
    public var source: ServiceName?

    /// A notice of `level`.
    public init(level: Level, message: String, remedy: Remedy? = nil, source: ServiceName? = nil) {
        self.level = level
        self.message = message
        self.remedy = remedy
        self.source = source
    }

    /// An informational notice from `source`.
    public static func info(_ message: String, from source: ServiceName? = nil) -> ServiceNotice {
        ServiceNotice(level: .info, message: message, source: source)
    }

    /// A warning from `source`, with what can help.
    public static func warning(_ message: String, from source: ServiceName? = nil, remedy: Remedy? = nil)
        -> ServiceNotice
    {
        ServiceNotice(level: .warning, message: message, remedy: remedy, source: source)
    }

    /// An error from `source`, with what can help.
    public static func error(_ message: String, from source: ServiceName? = nil, remedy: Remedy? = nil) -> ServiceNotice
    {
        ServiceNotice(level: .error, message: message, remedy: remedy, source: source)
    }

    /// "mqtt: connected to the broker", or "warning: no position: ..." for the logger.
    public var description: String {
        if let source { return "\(source): \(message)" }
        return "\(level.rawValue): \(message)"
    }
}
