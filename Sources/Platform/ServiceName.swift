/// Which service it is, as a value: what a group, a failure and a program compare and
/// say, instead of a string each of them spells.
///
/// Contract: two names are equal when their role and instance are; ``description`` is the
/// short text the journal and the failures show (`logger`, `publisher`, `mqtt`,
/// `upload.home`, `mqtt.upload.home`, `collect`, `metrics`, `serve`), the same words as
/// before names were values.
public struct ServiceName: Hashable, Sendable, CustomStringConvertible {
    /// What the service does.
    public enum Role: String, Sendable, Hashable {
        /// The field logger (`log run`).
        case logger
        /// The fleet publisher (`[mqtt]`).
        case publisher
        /// A broker connection.
        case mqtt
        /// An `[upload.NAME]` section.
        case upload
        /// The collector's ingest (`airloc collect`).
        case collector = "collect"
        /// The collector's `/metrics`.
        case metrics
        /// `airloc serve`.
        case serve
        /// A program's own service (a bench, a test, an example).
        case other
    }

    /// What the service does.
    public var role: Role
    /// Which one, where there may be several (an upload's section name; the owner of an
    /// MQTT connection other than the publisher's; an `other`'s name).
    public var instance: String?

    /// The name of the one service of `role` (or of its `instance`).
    public init(_ role: Role, instance: String? = nil) {
        self.role = role
        self.instance = instance
    }

    /// The field logger.
    public static let logger = ServiceName(.logger)
    /// The fleet publisher.
    public static let publisher = ServiceName(.publisher)
    /// The publisher's broker connection (and the collector's).
    public static let mqtt = ServiceName(.mqtt)
    /// The collector's ingest.
    public static let collector = ServiceName(.collector)
    /// The collector's `/metrics`.
    public static let metrics = ServiceName(.metrics)
    /// `airloc serve`.
    public static let serve = ServiceName(.serve)
    /// The upload of `[upload.NAME]`.
    public static func upload(_ name: String) -> ServiceName { ServiceName(.upload, instance: name) }
    /// A program's own service, called `name`.
    public static func other(_ name: String) -> ServiceName { ServiceName(.other, instance: name) }

    /// `logger`, `upload.home`, `mqtt.upload.home`.
    public var description: String {
        switch (role, instance) {
        case (.other, let instance?): return instance
        case (_, let instance?): return "\(role.rawValue).\(instance)"
        case (_, nil): return role.rawValue
        }
    }
}
