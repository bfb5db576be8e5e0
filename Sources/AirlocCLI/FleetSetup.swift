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
    static func publisher(_ context: CommandContext, settings: Settings, logbook: Logbook) throws(CLIError)
        -> FleetPublisher?
    {
        guard let url = settings.mqtt.url, let broker = MQTTSettings.broker(url) else { return nil }
        let deviceID: String
        do { deviceID = try DeviceIdentity.id(stateDirectory: settings.directories.state) } catch {
            throw CLIError(code: .ioError, message: "cannot keep the device id: \(error)")
        }
        var options = MQTTConnection.Options(
            host: broker.host, port: broker.port, clientID: settings.mqtt.clientID ?? "airloc-\(deviceID)")
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
}
