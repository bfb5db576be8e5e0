/// A broker as airloc.conf names it: the keys `[mqtt]` and `[collect]` share, declared once
/// (`url` is `[mqtt] url` and `[collect] broker`; `password-file` is `[collect]
/// broker-password-file`).
///
/// Contract: values as written, checked where they are read (``MQTTBroker`` for the URL);
/// the password is never in a description.
public struct BrokerSettings: Sendable, Equatable {
    /// `mqtt://host[:port]` or `mqtts://host[:port]`.
    public var url: String?
    /// The CA of the broker's certificate (`mqtts://`).
    public var caFile: String?
    /// A client certificate, for a broker that requires one.
    public var certFile: String?
    /// The client certificate's key.
    public var keyFile: String?
    /// The broker user name.
    public var username: String?
    /// The password written in the configuration itself (`[mqtt] password`; never logged).
    public var password: String?
    /// A file holding the password.
    public var passwordFile: String?
    /// The client id (nil: the user's default).
    public var clientID: String?

    /// Nothing set.
    public init() {}

    /// The broker of ``url``, or nil when it is not an MQTT URL.
    public var address: MQTTBroker? { url.flatMap(MQTTBroker.init(url:)) }
}

/// A broker's address as airloc.conf writes it: `mqtt://host[:port]` or
/// `mqtts://host[:port]` (TLS; nothing is sent in clear).
public struct MQTTBroker: Sendable, Equatable {
    /// The broker's host.
    public var host: String
    /// Its port (the scheme's default when the URL gives none).
    public var port: Int
    /// `mqtts://`: TLS.
    public var tls: Bool

    /// nil when `url` is not an MQTT URL (another scheme, no host, a port out of range).
    public init?(url: String) {
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
        self.host = String(host)
        self.port = port
    }

    /// `mqtt://host:1883`, for people.
    public var place: String { "\(tls ? "mqtts" : "mqtt")://\(host):\(port)" }
}
