import FleetWire
import Foundation
import Platform

/// `[mqtt]`: where the logbook is published and how much of the position leaves the
/// device with it (docs/fleet.md).
///
/// Contract: publishing is on exactly when `broker.url` is set; `mqtts` means TLS (nothing is
/// sent in clear); the password is never printed or logged; `position` defaults to
/// `coarse` (the `[privacy] outbound-precision` grid): a copy of personal data leaving the
/// device is as coarse as configured. With `end-to-end = collector` it defaults to `exact`:
/// the rows go to the operator's own database, whose day-track queries need the track
/// (`position = coarse` there is still honoured when written).
public struct MQTTSettings: Sendable, Equatable {
    /// How much of the position leaves the device (the wire's ``OutboundPosition``).
    public typealias Position = OutboundPosition

    /// The broker: its URL (`url`), TLS files, credentials and client id (default
    /// `airloc-<device id>`).
    public var broker = BrokerSettings()
    /// This device's name in the fleet (default: the topic prefix's last level when a
    /// prefix is set, else the random id in the state directory): ``DeviceIdentity/name(_:stateDirectory:)``.
    public var deviceID: String?
    /// The topics' prefix (default `airloc/<device id>`).
    public var topicPrefix: String?
    /// Publish Home Assistant discovery configs.
    public var discovery = true
    /// Home Assistant's discovery prefix.
    public var discoveryPrefix = "homeassistant"
    /// What of the position leaves the device: as configured, else `exact` for a
    /// collector's fleet and `coarse` (the outbound grid) otherwise.
    public var position: Position {
        get { configuredPosition ?? (endToEnd == .collector ? .exact : .coarse) }
        set { configuredPosition = newValue }
    }
    /// `[mqtt] position` as written (nil: not written).
    public var configuredPosition: Position?

    /// What of the position leaves the device, and why, for `doctor`: a collector's fleet
    /// gets the exact track by default, any other the coarse grid.
    public var positionSummary: String {
        guard configuredPosition == nil else { return "positions leave \(position.rawValue)" }
        let why = endToEnd == .collector ? " (end-to-end = collector: the database keeps the track)" : ""
        return "positions leave \(position.rawValue) by default\(why)"
    }
    /// `collector`: a row counts as delivered only when `airloc collect` said it stored
    /// it (docs/collector.md); `broker`: when the broker acknowledged it (the default).
    public var endToEnd = EndToEnd.broker
    /// With `end-to-end = collector`: publish again what the collector has not
    /// acknowledged for this long (seconds).
    public var ackTimeout = 120.0

    /// When a row counts as delivered.
    public enum EndToEnd: String, Sendable, CaseIterable {
        case broker, collector
    }

    /// The defaults (docs/fleet.md).
    public init() {}

    /// The broker of `url`, or nil when it is not an MQTT URL.
    public static func broker(_ url: String) -> MQTTBroker? { MQTTBroker(url: url) }

    /// Publishing is on (`[mqtt] url` is set).
    public var publishes: Bool { broker.url != nil }
}

extension DeviceIdentity {
    /// This device's one name in the fleet: in its rows, hello and acknowledgements, its
    /// topics, Home Assistant's discovery and the uploads. `[mqtt] device-id` when set;
    /// else the last level of `[mqtt] topic-prefix` when that is set (`airloc/pi-4` names
    /// `pi-4`, as the collector reads it from the topic); else the random ``id(stateDirectory:)``.
    public static func name(_ mqtt: MQTTSettings, stateDirectory: URL) throws(FileError) -> String {
        if let name = mqtt.deviceID { return name }
        if let prefix = mqtt.topicPrefix, let last = prefix.split(separator: "/").last, !last.isEmpty {
            return String(last)
        }
        return try id(stateDirectory: stateDirectory)
    }
}
