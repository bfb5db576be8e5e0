import Airloc
import Foundation
import Logbook
import Platform
import Web

/// Why `[mqtt]` cannot be set to work: facts, for the program to turn into advice.
public enum FleetSetupError: Error, Sendable, CustomStringConvertible {
    /// The device id (the default client id and topic) cannot be kept in the state directory.
    case deviceID(String)
    /// `[mqtt] password-file` cannot be read.
    case passwordFile(String)
    /// libmosquitto refused the options (an unusable TLS file, a bad host).
    case connection(FleetError)
    /// The logbook cannot be opened a second time for the outbox.
    case logbook(LogbookError)

    public var description: String {
        switch self {
        case .deviceID(let reason): return "cannot keep the device id: \(reason)"
        case .passwordFile(let path): return "[mqtt] password-file \(path) cannot be read"
        case .connection(let error): return "MQTT: \(error)"
        case .logbook(let error): return error.description
        }
    }
}

extension MQTTConnection.Options {
    /// How to reach `broker` as `[mqtt]` says: credentials (the password file read now,
    /// its text never shown), TLS files.
    public init(settings: Settings, broker: (host: String, port: Int, tls: Bool), clientID: String)
        throws(FleetSetupError)
    {
        self.init(host: broker.host, port: broker.port, clientID: clientID)
        tls = broker.tls
        caFile = settings.mqtt.caFile
        certFile = settings.mqtt.certFile
        keyFile = settings.mqtt.keyFile
        username = settings.mqtt.username
        password = settings.mqtt.password
        if let file = settings.mqtt.passwordFile {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw .passwordFile(file) }
            password = text.trimmingCharacters(in: .newlines)
        }
    }
}

extension FleetPublisher {
    /// A publisher for `logbook` as `[mqtt]` says, its connection started (an unreachable
    /// broker is waited for, not an error); nil without `[mqtt] url`.
    ///
    /// Contract: `logbook` is the writer's, opened with `outbox: true` (``publishes(_:)``
    /// says whether it should be) and `collector:` as ``awaitsCollector(_:)`` says, so
    /// that its new rows are born unsent (and unstored); the publisher
    /// reads them through a connection of its own to the same file. The will says
    /// `offline` on `<prefix>/status`.
    public static func make(
        settings: Settings, logbook: Logbook, notify: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(FleetSetupError) -> FleetPublisher? {
        guard let url = settings.mqtt.url, let broker = MQTTSettings.broker(url) else { return nil }
        let deviceID: String
        do { deviceID = try DeviceIdentity.id(stateDirectory: settings.directories.state) } catch {
            throw .deviceID("\(error)")
        }
        var options = try MQTTConnection.Options(
            settings: settings, broker: broker, clientID: settings.mqtt.clientID ?? "airloc-\(deviceID)")
        options.will = ("\(prefix(settings: settings, deviceID: deviceID))/status", "offline", true)
        let connection: MQTTConnection
        do {
            connection = try MQTTConnection(options: options)
            try connection.start()
        } catch { throw .connection(error) }
        guard logbook.outbox else {
            throw .logbook(.file(logbook.url.path, "opened without its outbox: open it with outbox: true to publish"))
        }
        let collector = awaitsCollector(settings)
        guard logbook.collector == collector else {
            throw .logbook(
                .file(
                    logbook.url.path,
                    "opened with collector: \(logbook.collector), and [mqtt] end-to-end says \(collector)"))
        }
        let outbox: Logbook
        do { outbox = try Logbook(url: logbook.url, outbox: true, collector: collector) } catch {
            throw .logbook(error)
        }
        var publisher = FleetPublisher(
            logbook: outbox, connection: connection, settings: settings, deviceID: deviceID, notify: notify)
        if collector {
            publisher.collector = CollectorLink(
                logbook: outbox, prefix: publisher.prefix, deviceID: deviceID,
                ackTimeout: .milliseconds(Int(settings.mqtt.ackTimeout * 1000)), notify: notify)
        }
        return publisher
    }

    /// True when `[mqtt]` names a broker: the logbook is then to be opened with its outbox.
    public static func publishes(_ settings: Settings) -> Bool {
        settings.mqtt.url.flatMap(MQTTSettings.broker) != nil
    }

    /// True when a collector acknowledges what it stored (`[mqtt] end-to-end = collector`,
    /// with a broker): the logbook is then to be opened with `collector: true` as well.
    public static func awaitsCollector(_ settings: Settings) -> Bool {
        publishes(settings) && settings.mqtt.endToEnd == .collector
    }

    /// Where it publishes, for people: "mqtt://host:1883 as airloc/abc".
    public var destination: String {
        let options = connection.options
        return "\(options.tls ? "mqtts" : "mqtt")://\(options.host):\(options.port) as \(prefix)"
    }
}

/// A look at the broker `[mqtt]` names, as `doctor` takes it: a throwaway session under a
/// client id of its own (a running logger is not pushed off).
public enum BrokerProbe {
    public enum Outcome: Sendable, Equatable {
        case accepted(place: String)
        /// The broker refused the credentials.
        case refused(place: String, reason: String)
        /// No answer, or another failure, within the time given.
        case unanswered(place: String, reason: String?)
        /// `[mqtt]` cannot work as written (an unreadable file, unusable options).
        case misconfigured(reason: String)
    }

    /// nil without `[mqtt] url`. Waits up to `timeout` of `time` for the first answer.
    public static func check(_ settings: Settings, timeout: Double, time: any TimeSource = SystemTime()) async
        -> Outcome?
    {
        guard let url = settings.mqtt.url, let broker = MQTTSettings.broker(url) else { return nil }
        let place = "\(broker.tls ? "mqtts" : "mqtt")://\(broker.host):\(broker.port)"
        let connection: MQTTConnection
        do {
            var options = try MQTTConnection.Options(
                settings: settings, broker: broker,
                clientID: "airloc-doctor-\(ProcessInfo.processInfo.processIdentifier)")
            options.persistentSession = false
            connection = try MQTTConnection(options: options)
            try connection.start()
        } catch let error as FleetSetupError {
            return .misconfigured(reason: error.description)
        } catch {
            return .misconfigured(reason: "\(error)")
        }
        defer { connection.close() }
        let end = time.now + .seconds(timeout)
        // libmosquitto's own thread settles the connection; its state is looked at often.
        while time.now < end && !connection.isConnected && connection.lastError == nil {
            try? await time.sleep(for: .milliseconds(50))
        }
        if connection.isConnected { return .accepted(place: place) }
        if connection.credentialsRefused {
            return .refused(place: place, reason: connection.lastError ?? "the broker refused the credentials")
        }
        return .unanswered(place: place, reason: connection.lastError)
    }
}
