import AirQuality
import FleetWire
import Foundation
import Geo
import Logbook
import MQTT
import Platform
import Settings

/// The logbook's outbox, drained into an MQTT broker: every row to `<prefix>/history`
/// (QoS 1, in order), the latest live reading and position to the retained topics Home
/// Assistant reads, availability on `<prefix>/status`.
///
/// Contract:
/// - The logbook is the truth: a row is marked sent only when the broker's PUBACK for it
///   arrived; a reconnect or a restart publishes again whatever was not acknowledged
///   (at least once: subscribers drop duplicates by `id`). At most `inFlight` rows are
///   unacknowledged at a time.
/// - On every (re)connection: `online` (retained) on the status topic, the discovery
///   configs, a subscription to Home Assistant's status (its `online` → discovery again).
///   The will, and the connection's farewell, say `offline`.
/// - What leaves the device is as coarse as `[mqtt] position` says: `exact`, `coarse`
///   (the `[privacy] outbound-precision` grid, the accuracy no better than the grid), or
///   `none` (no track rows, no device tracker, air rows without coordinates or place
///   name).
/// - A row whose content changes after it was published (back-filled, settled after
///   pending, re-stamped by GPS time) is published again under the same `id`: the last
///   message for an id is the row as the logbook holds it. An acknowledgement of an
///   older revision does not mark the newer one sent.
/// - Back-filled history goes to the history topic only (Home Assistant would record it
///   as "now"); `state` follows the newest live (or cached) reading younger than two
///   hours, never an older one published after it; `position` is sent when it changes
///   and is younger than two minutes. Both are retained, and sent again on every
///   (re)connection, for a broker that lost its retained messages.
/// - It is a ``Service``: it wakes for the connection's events, the logbook's new rows
///   (``LogbookChanges``) and the collector's deadlines, never on a timer of its own. On
///   the stop it publishes what is still unsent while the broker keeps acknowledging,
///   and ends once nothing is left or after `patience` without an acknowledgement (the
///   rows wait in the logbook); with the collector's acknowledgement, it also waits up to
///   `collectorPatience` for the collector to say it stored what was published. Refused
///   credentials end it with a ``ServiceFailure``.
public struct FleetPublisher: Service {
    /// The largest payload the device reads from the broker (64 KiB); libmosquitto reads a
    /// larger one whole before airloc sees it (only a broker's `max_packet_size` keeps it
    /// from being sent at all: docs/scaling.md).
    public static let largestPayload = 65_536

    /// Its name in the group.
    public let name = ServiceName.publisher
    /// The outbox (a connection of its own to the logger's file).
    public let logbook: Logbook
    /// The broker connection (a service of the same group).
    public let client: any MQTTClient
    /// The settings it runs with.
    public let settings: Settings
    /// The device's id.
    public let deviceID: String
    /// The logger's news of new rows (nil: only the connection's events wake it).
    public var changes: LogbookChanges?
    /// How long the drain at the stop waits for an acknowledgement before it gives up.
    public var patience: Duration = .seconds(5)
    /// With the collector's acknowledgement: how long the stop waits, once the broker has
    /// every row, for the collector to say it stored them (so that `log status` is true
    /// after the logger ended).
    public var collectorPatience: Duration = .seconds(3)
    /// How long the probe published on `<prefix>/probe` at the first connection has to come
    /// back before the publisher says the broker drops what this account publishes (looked
    /// at with the next event after it: the publisher keeps no timer for it).
    public var probePatience: Duration = .seconds(10)
    /// The end-to-end acknowledgement, with `[mqtt] end-to-end = collector`.
    public var collector: CollectorLink?

    /// A publisher of `logbook` through `client`.
    public init(
        logbook: Logbook, client: any MQTTClient, settings: Settings, deviceID: String,
        changes: LogbookChanges? = nil
    ) {
        self.logbook = logbook
        self.client = client
        self.settings = settings
        self.deviceID = deviceID
        self.changes = changes
    }

    /// The device's topics' prefix.
    public var prefix: String { Self.prefix(settings: settings, deviceID: deviceID) }

    /// `[mqtt] topic-prefix`, else `airloc/<device id>`.
    public static func prefix(settings: Settings, deviceID: String) -> String {
        settings.mqtt.topicPrefix ?? "airloc/\(deviceID)"
    }

    var discovery: HomeAssistantDiscovery {
        HomeAssistantDiscovery(
            deviceID: deviceID, prefix: prefix, discoveryPrefix: settings.mqtt.discoveryPrefix,
            tracker: settings.mqtt.position != .none, measured: settings.sensor.model,
            climate: settings.climateSensors.compactMap { section in section.model.map { (section.name, $0) } },
            freshness: settings.climateSensors.reduce(into: ["measured": settings.sensor.freshness]) {
                windows, section in
                windows["measured/\(section.name)"] = section.freshness
            })
    }

    enum Input: Sendable, Equatable {
        case mqtt(MQTTEvent)
        case rowsChanged
        /// A deadline of the collector's acknowledgement came.
        case collectorDue
        case stop
        /// The drain waited `patience` since its last progress.
        case patienceOver(progress: Int)
        /// The stop waited `collectorPatience` for the collector's acknowledgement.
        case collectorPatienceOver
    }

    /// Publishes until the stop (see the contract).
    public func run(_ context: ServiceContext) async throws(ServiceFailure) {
        let inbox = Mailbox<Input>()
        defer { inbox.close() }
        inbox.forward(client.events) { .mqtt($0) }
        if let changes { inbox.forward(changes.updates()) { _ in .rowsChanged } }
        context.whenStopping { inbox.send(.stop) }
        var driver = PublisherDriver(publisher: self, context: context, inbox: inbox)
        for await input in inbox.messages {
            if try driver.handle(input) == .done { return }
        }
    }

    /// The row as it may leave the device, or nil when it may not.
    func outbound(_ row: Logbook.OutboxRow) -> String? {
        row.line(showing: settings.mqtt.position, grid: settings.outboundPrecision)
    }

    /// Where it publishes, for people: "mqtt://host:1883 as airloc/abc".
    public var destination: String { "\(client.options.place) as \(prefix)" }
}
