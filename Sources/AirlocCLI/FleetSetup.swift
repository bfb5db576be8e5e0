import Airloc
import Fleet
import Foundation
import Logbook

/// `[mqtt]` turned into a running publisher for `log run` (docs/fleet.md).
///
/// Contract: nil without `[mqtt] url`; a configuration that cannot work (an unreadable
/// password or CA file) is a 78 before anything is logged; an unreachable broker is not
/// an error (it is waited for). The password is never printed.
enum FleetSetup {
    /// What to do when the broker refuses the credentials (`log run` and `doctor`).
    static let credentialsAdvice = "check [mqtt] username and password (or password-file)"

    static func publisher(_ context: CommandContext, settings: Settings, logbook: Logbook) throws(CLIError)
        -> FleetPublisher?
    {
        guard let url = settings.mqtt.url, let broker = MQTTSettings.broker(url) else { return nil }
        let deviceID: String
        do { deviceID = try DeviceIdentity.id(stateDirectory: settings.directories.state) } catch {
            throw CLIError(code: .ioError, message: "cannot keep the device id: \(error)")
        }
        var options = try connectionOptions(
            settings, broker: broker, clientID: settings.mqtt.clientID ?? "airloc-\(deviceID)")
        let prefix = FleetPublisher.prefix(settings: settings, deviceID: deviceID)
        options.will = ("\(prefix)/status", "offline", true)
        let connection: MQTTConnection
        do {
            connection = try MQTTConnection(options: options)
            try connection.start()
        } catch {
            throw .config("MQTT: \(error)")
        }
        // The logger's rows are now born unsent; a second connection drains them.
        logbook.outbox = true
        let outbox: Logbook
        do { outbox = try Logbook(url: logbook.url) } catch {
            throw CLIError(code: .ioError, message: error.description)
        }
        outbox.outbox = true
        let console = context.console
        context.console.err(
            "airloc: publishing to \(broker.tls ? "mqtts" : "mqtt")://\(broker.host):\(broker.port) as \(prefix)\n")
        return FleetPublisher(
            logbook: outbox, connection: connection, settings: settings, deviceID: deviceID,
            notify: { console.err("airloc: mqtt: \($0)\n") })
    }

    /// How to reach the broker as `[mqtt]` says (credentials, TLS files).
    static func connectionOptions(
        _ settings: Settings, broker: (host: String, port: Int, tls: Bool), clientID: String
    ) throws(CLIError) -> MQTTConnection.Options {
        var options = MQTTConnection.Options(host: broker.host, port: broker.port, clientID: clientID)
        options.tls = broker.tls
        options.caFile = settings.mqtt.caFile
        options.certFile = settings.mqtt.certFile
        options.keyFile = settings.mqtt.keyFile
        options.username = settings.mqtt.username
        options.password = settings.mqtt.password
        if let file = settings.mqtt.passwordFile {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw .config("[mqtt] password-file \(file) cannot be read")
            }
            options.password = text.trimmingCharacters(in: .newlines)
        }
        return options
    }

    /// `doctor`'s look at the broker: connect (a throwaway session under a client id of
    /// its own, so a running logger is not pushed off), wait up to `timeout` seconds.
    /// `configuration` is true when the failure is the configuration's (refused
    /// credentials, an unusable file); nil without `[mqtt] url`.
    static func check(_ settings: Settings, timeout: Double) async -> (check: HealthCheck, configuration: Bool)? {
        guard let url = settings.mqtt.url, let broker = MQTTSettings.broker(url) else { return nil }
        let name = "MQTT broker"
        let place = "\(broker.tls ? "mqtts" : "mqtt")://\(broker.host):\(broker.port)"
        let connection: MQTTConnection
        do {
            var options = try connectionOptions(
                settings, broker: broker, clientID: "airloc-doctor-\(ProcessInfo.processInfo.processIdentifier)")
            options.persistentSession = false
            connection = try MQTTConnection(options: options)
            try connection.start()
        } catch {
            return (HealthCheck(name: name, status: .fail, detail: "\(error)", advice: "fix [mqtt]"), true)
        }
        defer { connection.close() }
        let end = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < end && !connection.isConnected && connection.lastError == nil {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if connection.isConnected {
            return (HealthCheck(name: name, status: .ok, detail: "\(place) accepts the connection"), false)
        }
        let refused = connection.credentialsRefused
        return (
            HealthCheck(
                name: name, status: .fail,
                detail: connection.lastError ?? "\(place) did not answer within \(Int(timeout)) s",
                advice: refused
                    ? credentialsAdvice
                    : "check [mqtt] url, the network and the broker (log run keeps the rows until it answers)"),
            refused
        )
    }
}
