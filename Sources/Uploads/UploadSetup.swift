import Airloc
import FleetWire
import Foundation
import Logbook
import MQTT
import Platform
import Settings
import Web

extension Uploader {
    /// The uploaders of every `[upload.NAME]`, each reading `logbook`'s file through a
    /// connection of its own and waking on its ``Logbook/changes``; owntracks-mqtt ones
    /// with their broker connection (a service to run in the same group). Throws the first
    /// section that cannot work (exit 78). The device id (Traccar's and sensor.community's
    /// default) is the one kept in the state directory.
    public static func make(
        settings: Settings, logbook: Logbook, sender: any HTTPSender = NetworkTransport()
    ) throws(UploadSetupError) -> [Uploader] {
        guard !settings.uploads.isEmpty else { return [] }
        let deviceID: String
        do { deviceID = try DeviceIdentity.name(settings.mqtt, stateDirectory: settings.directories.state) } catch {
            throw UploadSetupError(settings.uploads[0].name, .deviceID("\(error)"))
        }
        var uploaders: [Uploader] = []
        for plan in try UploadPlan.plans(settings, deviceID: deviceID) {
            let own: Logbook
            do { own = try Logbook(url: logbook.url) } catch { throw UploadSetupError(plan.name, .logbook(error)) }
            let broker =
                plan.type == .owntracksMQTT ? try connection(plan, settings: settings, deviceID: deviceID) : nil
            uploaders.append(
                Uploader(plan: plan, logbook: own, sender: sender, broker: broker, changes: logbook.changes))
        }
        return uploaders
    }

    /// owntracks-mqtt's broker: its own `url` with `user` and the credentials file's
    /// password, or `[mqtt]`'s broker and credentials; a persistent session of its own.
    static func connection(_ plan: UploadPlan, settings: Settings, deviceID: String) throws(UploadSetupError)
        -> any MQTTClient
    {
        guard let broker = MQTTSettings.broker(plan.url) else {
            throw UploadSetupError(plan.name, .scheme("mqtt(s)://"))
        }
        let clientID = "airloc-\(deviceID)-\(plan.name)".filter { $0.isLetter || $0.isNumber || $0 == "-" }
        var options: MQTTOptions
        if plan.url == settings.mqtt.broker.url {
            do { options = try MQTTOptions(broker: settings.mqtt.broker, clientID: clientID) } catch {
                throw UploadSetupError(plan.name, .needs("a readable [mqtt] password-file (\(error))"))
            }
        } else {
            options = MQTTOptions(host: broker.host, port: broker.port, clientID: clientID)
            options.tls = broker.tls
            options.username = plan.secret == nil ? nil : plan.user
            options.password = plan.secret
        }
        options.inFlight = 10
        do { return try MQTT.client(options, name: ServiceName(.mqtt, instance: "upload.\(plan.name)")) } catch {
            throw UploadSetupError(plan.name, .mqtt(error))
        }
    }
}

/// A look at each upload's server, as `doctor` takes it: reachable, credentials accepted,
/// and nothing uploaded (Traccar gets the id alone, a status report; openSenseMap an
/// empty batch; OwnTracks' endpoint a request without a body; owntracks-mqtt a broker
/// connection of its own).
public enum UploadProbe {
    /// What the server said.
    public enum Outcome: Sendable, Equatable {
        case accepted(String)
        /// The server is there, but its answer does not say the upload will work.
        case doubtful(String)
        case refused(String)
        case unreachable(String)
    }

    /// One request to `plan`'s server that uploads nothing, and what its answer means.
    public static func check(_ plan: UploadPlan, sender: any HTTPSender = NetworkTransport(), timeout: Duration)
        async -> Outcome
    {
        let probe = plan.type.isPublicMap ? MeasuredFormats.probe(plan) : PositionFormats.probe(plan)
        guard case .http(let request)? = probe else {
            return .accepted("\(plan.url) (checked when the logger connects)")
        }
        let answer: HTTPAnswer
        do { answer = try await sender.send(request, service: "[upload.\(plan.name)]", timeout: timeout) } catch {
            return .unreachable("\(error)")
        }
        switch UploadVerdict.judge(answer, type: plan.type.rawValue, now: Date()) {
        case .refused(let reason): return .refused(reason)
        case .retry(_, let reason): return .unreachable(reason)
        case .accepted, .rejected:
            let answered = "\(request.url.absoluteString) answered HTTP \(answer.status)"
            if plan.type == .sensorCommunity {
                // It takes no credentials and a request without a reading proves only that
                // it is there; what decides is the id registered there.
                return .accepted(
                    "\(plan.url) is reachable; readings go as raspi-\(plan.id), which must be registered at "
                        + "devices.sensor.community (nothing more can be checked before the first reading)")
            }
            // The server is there and took the credentials when it answered as expected
            // (the Recorder answers a GET with 405; an empty batch may be a 422).
            let expected: Set<Int> = plan.type == .owntracksHTTP ? [405] : plan.type == .openSenseMap ? [422] : []
            if (200..<300).contains(answer.status) || expected.contains(answer.status) { return .accepted(answered) }
            return .doubtful("\(answered) to a request that uploads nothing")
        }
    }
}

extension UploadProbe {
    /// `doctor`'s checks of each `[upload.NAME]`: the section complete, the server
    /// reachable, the credentials accepted, nothing uploaded. `configuration` as above.
    public static func checks(_ settings: Settings, timeout: Double) async -> (
        checks: [HealthCheck], configuration: Bool
    ) {
        var checks: [HealthCheck] = []
        var configuration = false
        let deviceID =
            (try? DeviceIdentity.name(settings.mqtt, stateDirectory: settings.directories.state)) ?? "unknown"
        for upload in settings.uploads {
            let name = "upload \(upload.name)"
            if let type = upload.type, type.isPublicMap, settings.sensor.model == nil {
                // A public map takes only measured air: without a sensor it gets nothing.
                checks.append(
                    HealthCheck(
                        name: "\(name) readings", status: .warn,
                        detail: "\(type.rawValue) takes only what a sensor measured, and no [sensor] is set: "
                            + "it gets nothing new",
                        advice: "set [sensor] model (docs/sensors.md), or remove [upload.\(upload.name)]"))
            }
            let plan: UploadPlan
            do { plan = try UploadPlan(upload, settings: settings, deviceID: deviceID) } catch {
                checks.append(
                    HealthCheck(name: name, status: .fail, detail: error.description, advice: "fix the section"))
                configuration = true
                continue
            }
            switch await check(plan, timeout: .seconds(timeout)) {
            case .accepted(let detail):
                checks.append(HealthCheck(name: name, status: .ok, detail: "\(plan.type.rawValue): \(detail)"))
            case .doubtful(let detail):
                checks.append(
                    HealthCheck(
                        name: name, status: .warn, detail: "\(plan.type.rawValue): \(detail)",
                        advice: "check [upload.\(upload.name)] url: is it the service's own endpoint?"))
            case .refused(let reason):
                checks.append(
                    HealthCheck(
                        name: name, status: .fail, detail: reason,
                        advice: "check [upload.\(upload.name)] url, id, box and credentials-file"))
                configuration = true
            case .unreachable(let reason):
                checks.append(
                    HealthCheck(
                        name: name, status: .fail, detail: reason,
                        advice: "check the url and the network (log run keeps the rows until it answers)"))
            }
        }
        return (checks, configuration)
    }
}
