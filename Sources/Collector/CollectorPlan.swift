import FleetStore
import FleetWire
import Foundation
import MQTT
import Platform
import Settings

/// What `airloc collect` runs with, read from `[collect]` once at start: the broker's
/// connection, the database's connection string and password, the limits.
///
/// Contract: the password file must be a regular file readable by its owner only (mode
/// 0600 or stricter): a password others can read is refused, never used. The password is
/// kept here and handed to libpq; it is in no description and no log line.
public struct CollectorPlan: Sendable {
    /// `[collect]`.
    public var settings: CollectSettings
    /// The broker connection's options.
    public var broker: MQTTOptions
    /// `mqtt://host:port`, for people.
    public var brokerPlace: String
    /// The libpq connection string (it may hold no password: see ``password``).
    public var conninfo: String
    /// The database password, from the password file (never shown).
    public var password: String?
    /// The topic levels before every device's topics.
    public var topicPrefix: String { settings.topicPrefix }
    /// Rows a transaction at most.
    public var batch: Int { settings.batch }
    /// Rows held at most while the database is down (then the broker is left).
    public var bufferLimit: Int { settings.batch * 4 }
    /// Seconds a connection attempt may take.
    public var connectTimeout = 10
    /// Where the running collector writes what `collect status` shows (nil: nowhere):
    /// `collect-status.json` in the state directory unless given.
    public var statusFile: URL?

    /// The plan of `collect`, the status file in `stateDirectory` unless given.
    public init(settings collect: CollectSettings, stateDirectory: URL, statusFile: URL? = nil)
        throws(CollectorSetupError)
    {
        guard collect.broker.url != nil else { throw .missing("broker") }
        guard let database = collect.database else { throw .missing("database") }
        self.settings = collect
        let host = ProcessInfo.processInfo.hostName.filter { $0.isLetter || $0.isNumber || $0 == "-" }
        var options: MQTTOptions
        do {
            options = try MQTTOptions(
                broker: collect.broker, clientID: collect.broker.clientID ?? "airloc-collect-\(host.prefix(40))",
                ownerOnly: true)
        } catch {
            switch error {
            case .url: throw .broker(error.description)
            case .passwordFile(let path, let reason):
                throw .passwordFile(key: "broker-password-file", path: path, reason: reason)
            }
        }
        brokerPlace = options.place
        options.inFlight = 100
        options.maximumPayload = collect.maxMessage
        // A member of a share group holds its place in the group only while connected: the
        // broker hands every Nth row to each session of the group, and a persistent session
        // of a member that died (and may never come back) would keep taking its share into a
        // queue nobody reads. The devices publish again what was not acknowledged.
        options.persistentSession = collect.share == nil
        broker = options
        conninfo = database
        password = try collect.passwordFile.map { file throws(CollectorSetupError) in
            try DatabaseAccess.secret(file, key: "password-file")
        }
        self.statusFile = statusFile ?? stateDirectory.appendingPathComponent("collect-status.json")
    }
}
