import FleetWire
import Foundation
import Logbook
import MQTT
import Platform
import Settings

/// Why an `[upload.NAME]` section cannot work as written, in the section's words.
public struct UploadSetupError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What is wrong with the section.
    public enum Problem: Sendable, Equatable {
        /// No `type`.
        case noType
        /// A key the type needs is missing: what to add, in the section's words.
        case needs(String)
        /// `url` has the wrong scheme for the type: the scheme it must have.
        case scheme(String)
        /// The credentials file cannot be used.
        case credentials(path: String, SecretFile.Problem)
        /// The device id cannot be kept in the state directory.
        case deviceID(String)
        /// The logbook cannot be opened for the upload.
        case logbook(LogbookError)
        /// The broker connection cannot be made.
        case mqtt(MQTTError)
    }

    /// The section's name (`[upload.NAME]`).
    public var name: String
    /// What is wrong.
    public var problem: Problem

    init(_ name: String, _ problem: Problem) {
        self.name = name
        self.problem = problem
    }

    /// "[upload.NAME] …", in the section's words.
    public var description: String {
        let text: String
        switch problem {
        case .noType:
            text = "has no type: one of \(UploadSettings.Kind.allCases.map(\.rawValue).joined(separator: ", "))"
        case .needs(let what): text = "needs \(what)"
        case .scheme(let scheme): text = "url must be \(scheme)"
        case .credentials(let path, let problem):
            let advice = { if case .readableByOthers = problem { return ": chmod 600 \(path)" } else { return "" } }()
            text = "credentials-file \(path): \(problem)\(advice)"
        case .deviceID(let reason): text = "cannot keep the device id: \(reason)"
        case .logbook(let error): text = "cannot open the logbook: \(error)"
        case .mqtt(let error): text = "MQTT: \(error)"
        }
        return "[upload.\(name)] \(text)"
    }
}

/// One upload as it will run: its section checked for its type, its secret read.
///
/// Contract: every key the type needs is present (`url`; `user` and `device` for
/// OwnTracks; `box`, a `sensor-…` and `credentials-file` for openSenseMap); the
/// credentials file is 0600 (``SecretFile``). `kinds` are the logbook's rows it takes:
/// positions (`track`) for OwnTracks and Traccar, measured readings (`sensor`) for the
/// public maps, which never receive the model's values.
public struct UploadPlan: Sendable {
    /// The section's name.
    public var name: String
    /// The server's kind.
    public var type: UploadSettings.Kind
    /// Where it is.
    public var url: String
    /// The password or token, read from `credentials-file` (never shown).
    public var secret: String?
    /// OwnTracks' user.
    public var user: String
    /// OwnTracks' device.
    public var device: String
    /// Traccar's device id, and sensor.community's `raspi-<id>`.
    public var id: String
    /// openSenseMap's box id.
    public var box: String?
    /// openSenseMap's sensor id per value (`pm2_5` → id).
    public var sensors: [String: String]
    /// What of the position goes.
    public var position: MQTTSettings.Position
    /// Rows a request at most.
    public var batch: Int
    /// Rows older than this are not sent (sensor.community stamps a reading on arrival).
    public var maxAge: TimeInterval?
    /// Readings airloc flagged go too (`flagged = send`); otherwise they are skipped.
    public var sendsFlagged: Bool
    /// The `[privacy] outbound-precision` grid of `coarse`.
    public var precision: Double
    /// The least time between two requests (a server's fair use): zero for the servers of
    /// one row a request (one request at a time), 200 ms between openSenseMap's batches.
    public var pace: Duration
    /// For owntracks-mqtt without a url of its own: the `[mqtt]` broker and credentials.
    public var mqtt: MQTTSettings

    /// The logbook's kinds of rows it takes.
    public var kinds: [RowKind] { type.rows }

    /// The plans of every `[upload.NAME]`, or the first section that cannot work.
    public static func plans(_ settings: Settings, deviceID: String) throws(UploadSetupError) -> [UploadPlan] {
        var plans: [UploadPlan] = []
        for upload in settings.uploads { plans.append(try UploadPlan(upload, settings: settings, deviceID: deviceID)) }
        return plans
    }

    /// The plan of `upload`, or what is wrong with it.
    public init(_ upload: UploadSettings, settings: Settings, deviceID: String) throws(UploadSetupError) {
        let name = upload.name
        guard let type = upload.type else { throw UploadSetupError(name, .noType) }
        var url = upload.url
        if type == .owntracksMQTT, url == nil { url = settings.mqtt.broker.url }
        guard let url else {
            throw UploadSetupError(
                name, .needs(type == .owntracksMQTT ? "url, or [mqtt] url to publish through" : "url"))
        }
        let isBroker = MQTTSettings.broker(url) != nil
        guard isBroker == (type == .owntracksMQTT) else {
            throw UploadSetupError(name, .scheme(type == .owntracksMQTT ? "mqtt(s)://" : "http(s)://"))
        }
        if type == .owntracksMQTT || type == .owntracksHTTP {
            guard upload.user != nil, upload.device != nil else {
                throw UploadSetupError(name, .needs("user and device (OwnTracks' owntracks/<user>/<device>)"))
            }
        }
        if type == .openSenseMap {
            guard upload.box != nil else { throw UploadSetupError(name, .needs("box (the openSenseMap box id)")) }
            guard !upload.sensors.isEmpty else {
                throw UploadSetupError(name, .needs("a sensor id per value, e.g. sensor-pm2_5 and sensor-pm10"))
            }
            guard upload.credentialsFile != nil else {
                throw UploadSetupError(name, .needs("credentials-file (the box's access token, mode 0600)"))
            }
        }
        if type == .owntracksHTTP, upload.credentialsFile == nil {
            throw UploadSetupError(name, .needs("credentials-file (the Recorder's password, mode 0600)"))
        }
        var secret: String?
        if let file = upload.credentialsFile {
            do { secret = try SecretFile.read(file) } catch {
                throw UploadSetupError(name, .credentials(path: file, error))
            }
        }
        self.name = name
        self.type = type
        self.url = url
        self.secret = secret
        self.user = upload.user ?? ""
        self.device = upload.device ?? ""
        self.id = upload.id ?? deviceID
        self.box = upload.box
        self.sensors = upload.sensors
        self.position = upload.resolvedPosition
        self.batch = type == .openSenseMap ? (upload.batch ?? 100) : 1
        self.maxAge = upload.maxAge.map { $0 > 0 ? $0 : nil } ?? (type == .sensorCommunity ? 900 : nil)
        self.sendsFlagged = upload.sendFlagged
        self.precision = settings.outboundPrecision
        // One request at a time is the pace of the single-row servers; openSenseMap, which
        // takes batches, gets a fifth of a second between them.
        self.pace = type == .openSenseMap ? .milliseconds(200) : .zero
        self.mqtt = settings.mqtt
    }
}
