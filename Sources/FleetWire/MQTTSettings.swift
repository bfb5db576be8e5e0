import MQTT

/// `[mqtt]`: where the logbook is published and how much of the position leaves the
/// device with it (docs/fleet.md).
///
/// Contract: publishing is on exactly when `url` is set; `mqtts` means TLS (nothing is
/// sent in clear); the password is never printed or logged; `position` defaults to
/// `coarse` (the `[privacy] outbound-precision` grid): a copy of personal data leaving the
/// device is as coarse as configured.
public struct MQTTSettings: Sendable, Equatable {
    public enum Position: String, Sendable, CaseIterable {
        case exact, coarse, none
    }

    /// `mqtt://host[:port]` or `mqtts://host[:port]`.
    public var url: String?
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    public var username: String?
    public var password: String?
    public var passwordFile: String?
    public var clientID: String?
    public var topicPrefix: String?
    public var discovery = true
    public var discoveryPrefix = "homeassistant"
    public var position = Position.coarse
    /// `collector`: a row counts as delivered only when `airloc collect` said it stored
    /// it (docs/collector.md); `broker`: when the broker acknowledged it (the default).
    public var endToEnd = EndToEnd.broker
    /// With `end-to-end = collector`: publish again what the collector has not
    /// acknowledged for this long (seconds).
    public var ackTimeout = 120.0

    public enum EndToEnd: String, Sendable, CaseIterable {
        case broker, collector
    }

    public init() {}

    /// The broker of `url`, or nil when it is not an MQTT URL.
    public static func broker(_ url: String) -> MQTTBroker? { MQTTBroker(url: url) }
}
