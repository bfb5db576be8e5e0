import FleetWire
import Foundation
import Logbook
import MQTT
import Platform
import Settings

/// Why `[mqtt]` cannot be set to work: facts, for the program to turn into advice.
public enum FleetSetupError: Error, Sendable, CustomStringConvertible {
    /// The device id (the default client id and topic) cannot be kept in the state directory.
    case deviceID(String)
    /// `[mqtt] password-file` cannot be read, or anyone may read it.
    case passwordFile(BrokerSetupError)
    /// libmosquitto refused the options (an unusable TLS file, a bad host), or is missing.
    case connection(MQTTError)
    /// The logbook cannot be opened a second time for the outbox.
    case logbook(LogbookError)

    /// What is wrong with `[mqtt]`.
    public var description: String {
        switch self {
        case .deviceID(let reason): return "cannot keep the device id: \(reason)"
        case .passwordFile(let error): return "[mqtt] password-file \(error)"
        case .connection(let error): return "MQTT: \(error)"
        case .logbook(let error): return error.description
        }
    }
}

extension FleetPublisher {
    /// A publisher for `logbook` as `[mqtt]` says, with its connection (not running yet:
    /// it is a service of the same group, ``LoggingService``); nil without `[mqtt] url`.
    ///
    /// Contract: `logbook` is the writer's, opened with `outbox: true` (``publishes(_:)``
    /// says whether it should be) and `collector:` as ``awaitsCollector(_:)`` says, so
    /// that its new rows are born unsent (and unstored); the publisher reads them through a
    /// connection of its own to the same file and wakes on the writer's ``Logbook/changes``.
    /// The will and the connection's farewell say `offline` on `<prefix>/status`.
    public static func make(settings: Settings, logbook: Logbook) throws(FleetSetupError) -> FleetPublisher? {
        guard settings.mqtt.broker.address != nil else { return nil }
        let deviceID: String
        do { deviceID = try DeviceIdentity.name(settings.mqtt, stateDirectory: settings.directories.state) } catch {
            throw .deviceID("\(error)")
        }
        var options: MQTTOptions
        do {
            options = try MQTTOptions(
                broker: settings.mqtt.broker, clientID: settings.mqtt.broker.clientID ?? "airloc-\(deviceID)")
        } catch {
            throw .passwordFile(error)
        }
        let status = MQTTOptions.Message(
            topic: "\(prefix(settings: settings, deviceID: deviceID))/status", payload: DeviceStatus.offline.word)
        options.will = status
        options.farewell = status
        // What a device reads (acks of 32 ranges and 1,024 revisions, replays, Home
        // Assistant's status, its probe) stays far below this; a larger payload on its
        // topics (anyone may retain one on an open broker) is refused before it is copied
        // or decoded, as the collector refuses one over `[collect] max-message`.
        options.maximumPayload = FleetPublisher.largestPayload
        let client: any MQTTClient
        do { client = try MQTT.client(options) } catch { throw .connection(error) }
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
            logbook: outbox, client: client, settings: settings, deviceID: deviceID, changes: logbook.changes)
        if collector {
            publisher.collector = CollectorLink(
                logbook: outbox, prefix: publisher.prefix, deviceID: deviceID,
                ackTimeout: .milliseconds(Int(settings.mqtt.ackTimeout * 1000)))
        }
        return publisher
    }

    /// True when `[mqtt]` names a broker: the logbook is then to be opened with its outbox.
    public static func publishes(_ settings: Settings) -> Bool {
        settings.mqtt.broker.url.flatMap(MQTTSettings.broker) != nil
    }

    /// True when a collector acknowledges what it stored (`[mqtt] end-to-end = collector`,
    /// with a broker): the logbook is then to be opened with `collector: true` as well.
    public static func awaitsCollector(_ settings: Settings) -> Bool {
        publishes(settings) && settings.mqtt.endToEnd == .collector
    }
}

/// A look at the broker `[mqtt]` names, as `doctor` takes it: a throwaway session under a
/// client id of its own (a running logger is not pushed off).
public enum BrokerProbe {
    /// What the broker said.
    public enum Outcome: Sendable, Equatable {
        case accepted(place: String)
        /// The broker refused the credentials.
        case refused(place: String, reason: String)
        /// No answer, or another failure, within the time given.
        case unanswered(place: String, reason: String?)
        /// `[mqtt]` cannot work as written (an unreadable file, unusable options).
        case misconfigured(reason: String)
        /// The broker took the connection, but a message published on `topic` (the
        /// device's own subtree) never came back: it drops what this account publishes
        /// there (mosquitto acknowledges a publish its ACL drops).
        case dropped(place: String, topic: String)
    }

    private enum Input: Sendable {
        case mqtt(MQTTEvent)
        case timeout
    }

    /// nil without `[mqtt] url`. Waits up to `timeout` of `time` for the first answer, and
    /// for a probe published on the device's own subtree (`<prefix>/probe`) to come back.
    public static func check(_ settings: Settings, timeout: Double, time: any TimeSource = SystemTime()) async
        -> Outcome?
    {
        guard let broker = settings.mqtt.broker.address else { return nil }
        let options: MQTTOptions
        do {
            options = try MQTTOptions(broker: settings.mqtt.broker, clientID: "probe")
        } catch {
            return .misconfigured(reason: "[mqtt] password-file \(error)")
        }
        let echo = (try? DeviceIdentity.name(settings.mqtt, stateDirectory: settings.directories.state)).map {
            FleetPublisher.prefix(settings: settings, deviceID: $0) + "/probe"
        }
        return await check(options, place: broker.place, section: "[mqtt]", timeout: timeout, time: time, echo: echo)
    }

    /// The broker `options` name (another section's, as `[collect]`), under a client id of
    /// the probe's own and a clean session; problems are worded with `section`. With
    /// `echo`, a message published there must come back (QoS 1, not retained) before the
    /// broker counts as taking what this account publishes.
    public static func check(
        _ options: MQTTOptions, place: String, section: String, timeout: Double, time: any TimeSource = SystemTime(),
        echo: String? = nil
    ) async -> Outcome {
        var options = options
        options.clientID = "airloc-doctor-\(ProcessInfo.processInfo.processIdentifier)"
        options.persistentSession = false
        options.will = nil
        let client: any MQTTClient
        do {
            client = try MQTT.client(options, name: .other("probe"))
        } catch {
            return .misconfigured(reason: "\(error)")
        }
        let context = ServiceContext(name: .other("probe"), time: time) { _ in }
        let running = Task { try? await client.run(context) }
        let inbox = Mailbox<Input>()
        inbox.forward(client.events) { .mqtt($0) }
        inbox.wake(after: .milliseconds(Int(timeout * 1000)), on: time, with: .timeout)
        var outcome = Outcome.unanswered(place: place, reason: nil)
        let probe = "airloc doctor \(ProcessInfo.processInfo.processIdentifier) \(UUID().uuidString)"
        for await input in inbox.messages {
            switch input {
            case .mqtt(.connected):
                guard let echo else {
                    outcome = .accepted(place: place)
                    break
                }
                // Subscribed first: the broker hands the probe back once it passed its ACL.
                try? client.subscribe(echo)
                _ = try? client.publish(echo, probe, retain: false)
                outcome = .dropped(place: place, topic: echo)
                continue
            case .mqtt(.message(let topic, let payload, _)) where topic == echo && payload == probe:
                outcome = .accepted(place: place)
            case .mqtt(.failed(let problem)) where problem.isPermanent:
                outcome = .refused(place: place, reason: problem.message(section: section))
            case .mqtt(.failed(let problem)), .mqtt(.disconnected(let problem?)):
                outcome = .unanswered(place: place, reason: problem.message(section: section))
            case .timeout: break
            case .mqtt: continue
            }
            break
        }
        inbox.close()
        context.requestStop()
        await running.value
        return outcome
    }
}
