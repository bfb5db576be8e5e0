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

    /// The broker of `url`: (host, port, TLS), or nil when it is not an MQTT URL.
    public static func broker(_ url: String) -> (host: String, port: Int, tls: Bool)? {
        let tls: Bool
        let rest: Substring
        if url.hasPrefix("mqtt://") {
            tls = false
            rest = url.dropFirst(7)
        } else if url.hasPrefix("mqtts://") {
            tls = true
            rest = url.dropFirst(8)
        } else {
            return nil
        }
        let authority = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard let host = parts.first, !host.isEmpty, parts.count <= 2 else { return nil }
        let port = parts.count == 2 ? Int(parts[1]) : (tls ? 8883 : 1883)
        guard let port, (1...65535).contains(port) else { return nil }
        return (String(host), port, tls)
    }
}
