/// How to reach a broker and what session to keep there: everything a connection is made
/// with, checked when it is made (a CA file that cannot be read is an error then, not on
/// the first connection).
///
/// Contract: a persistent session (clean session off) under `clientID`, QoS 1, at most
/// `inFlight` messages unacknowledged; the will is registered before connecting (the
/// broker publishes it if the program dies); the farewell is published, retained, and
/// waited for (2 s at most) when the connection is closed cleanly, and then the broker
/// drops the will. The password is never in a description.
public struct MQTTOptions: Sendable, Equatable {
    /// The broker's host name or address.
    public var host: String
    /// Its port (1883; 8883 for TLS).
    public var port: Int
    /// The session's client id: one connection per id at a time.
    public var clientID: String
    /// The user name, when the broker wants one.
    public var username: String?
    /// The password (read from a file by the caller; never shown).
    public var password: String?
    /// TLS: nothing is sent in clear.
    public var tls = false
    /// The CA that signed the broker's certificate (nil: the system's).
    public var caFile: String?
    /// A client certificate, for a broker that requires one.
    public var certFile: String?
    /// The client certificate's key.
    public var keyFile: String?
    /// Seconds between keepalive pings.
    public var keepalive = 30
    /// A session the broker keeps across disconnects (the logger's, the collector's);
    /// off for a probe and for a member of a collectors' share group.
    public var persistentSession = true
    /// At most this many QoS 1 messages in flight (unacknowledged) at once.
    public var inFlight = 100
    /// Published by the broker if this client dies: `offline` on a status topic.
    public var will: Message?
    /// Published on a clean close, before the disconnect: `offline` on a status topic.
    public var farewell: Message?
    /// A message whose payload is larger (bytes) is not handed over: it arrives as
    /// ``MQTTEvent/unreadable(topic:problem:)`` without being copied or decoded (nil: any
    /// size). libmosquitto reads a packet whole before it is seen: the broker's
    /// `message_size_limit` bounds that.
    public var maximumPayload: Int?

    /// A retained or plain message on a topic.
    public struct Message: Sendable, Equatable {
        /// Its topic.
        public var topic: String
        /// Its payload, UTF-8.
        public var payload: String
        /// Retained by the broker for later subscribers.
        public var retain: Bool

        /// A message (retained unless said).
        public init(topic: String, payload: String, retain: Bool = true) {
            self.topic = topic
            self.payload = payload
            self.retain = retain
        }
    }

    /// The options of a connection to `host:port` under `clientID`.
    public init(host: String, port: Int, clientID: String) {
        self.host = host
        self.port = port
        self.clientID = clientID
    }

    /// `mqtt://host:1883` or `mqtts://host:8883`, for people.
    public var place: String { "\(tls ? "mqtts" : "mqtt")://\(host):\(port)" }

    /// Equal in every option.
    public static func == (a: MQTTOptions, b: MQTTOptions) -> Bool {
        (a.host, a.port, a.clientID, a.username, a.password, a.tls) == (
            b.host, b.port, b.clientID, b.username, b.password, b.tls
        )
            && (a.caFile, a.certFile, a.keyFile, a.keepalive, a.persistentSession, a.inFlight)
                == (b.caFile, b.certFile, b.keyFile, b.keepalive, b.persistentSession, b.inFlight)
            && a.will == b.will && a.farewell == b.farewell && a.maximumPayload == b.maximumPayload
    }
}
