/// A message id libmosquitto gave a publish: its acknowledgement names it.
public typealias MQTTMessageID = Int32

/// What happens on a connection, in the order it happened: what every user of a broker
/// waits on instead of looking at the connection's state.
public enum MQTTEvent: Sendable, Equatable {
    /// The broker accepted the connection: the `generation`-th of this client (1, 2, ...).
    /// A new generation means: subscribe, greet, and publish again what was in flight.
    case connected(generation: Int)
    /// An established connection ended (nil: closed by this client).
    case disconnected(MQTTProblem?)
    /// A connection could not be made; it is tried again after a back-off unless
    /// ``MQTTProblem/isPermanent`` (refused credentials: retrying cannot help).
    case failed(MQTTProblem)
    /// The broker acknowledged a QoS 1 publish (its PUBACK).
    case acknowledged(MQTTMessageID)
    /// A message arrived on a subscribed topic; `retained`: the broker's stored copy, handed
    /// over at the subscription (not something its sender said just now).
    case message(topic: String, payload: String, retained: Bool)
    /// A message arrived that is not handed over: its payload is larger than
    /// ``MQTTOptions/maximumPayload`` (it is never copied or decoded), or not UTF-8.
    case unreadable(topic: String, problem: MQTTPayloadProblem)
}

/// Why a message's payload was not handed over.
public enum MQTTPayloadProblem: Sendable, Equatable, CustomStringConvertible {
    /// More bytes than the connection takes.
    case tooLarge(bytes: Int, limit: Int)
    /// Bytes that are not UTF-8 text.
    case notUTF8

    /// Why, in words.
    public var description: String {
        switch self {
        case .tooLarge(let bytes, let limit): return "a payload of \(bytes) bytes (at most \(limit))"
        case .notUTF8: return "a payload that is not UTF-8"
        }
    }
}

/// Why a broker cannot be reached or used, as facts: each user words the advice with its
/// own section (`[mqtt]`, `[collect]`, `[upload.NAME]`).
public enum MQTTProblem: Sendable, Equatable {
    /// No connection to `place` (`host:port`; a refused port, an unknown host, no route):
    /// `cause` is the system's word.
    case unreachable(place: String, cause: String)
    /// The TLS handshake failed: `detail` is OpenSSL's word ("certificate verify failed").
    case tls(place: String, detail: String, clientCertificate: Bool)
    /// The broker refused the connection (CONNACK): `credentials` when it was the user
    /// name, the password or authorisation (retrying cannot help).
    case refused(reason: String, credentials: Bool)
    /// The connection dropped.
    case lost(place: String)

    /// True when trying again cannot help.
    public var isPermanent: Bool {
        if case .refused(_, true) = self { return true }
        return false
    }

    /// What went wrong, with the settings of `section` to look at ("[mqtt]").
    public func message(section: String) -> String {
        switch self {
        case .unreachable(let place, let cause): return "cannot reach the broker \(place) (\(cause))"
        case .tls(let place, let detail, let clientCertificate):
            if !clientCertificate, Self.wantsCertificate(detail) {
                return "TLS with \(place) failed: the broker requires a client certificate, and none is set "
                    + "(set \(section) cert-file and key-file; nothing was sent)"
            }
            let certificate =
                clientCertificate
                ? "" : "; a broker that requires client certificates needs \(section) cert-file and key-file"
            return "TLS with \(place) failed: \(detail) (nothing was sent; check \(section) ca-file and that the "
                + "broker speaks TLS on that port\(certificate))"
        case .refused(let reason, _): return "the broker refused the connection: \(reason)"
        case .lost(let place): return "lost the connection to the broker \(place)"
        }
    }

    /// OpenSSL's words for a handshake the broker ended for want of a client certificate
    /// ("tlsv13 alert certificate required"; TLS 1.2: "sslv3 alert handshake failure" is
    /// not specific enough to say so).
    private static func wantsCertificate(_ detail: String) -> Bool {
        detail.contains("certificate required") || detail.contains("did not return a certificate")
    }
}

/// Why a client cannot be made or used.
public enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libmosquitto is not installed (or too old): the reason says which.
    case unavailable(String)
    /// An option libmosquitto refused (an unreadable CA file, a bad will): `what` names it.
    case option(what: String, reason: String)
    /// The client was closed.
    case closed
    /// The publish could not be queued.
    case publish(topic: String, reason: String)

    /// The problem in words.
    public var description: String {
        switch self {
        case .unavailable(let reason): return reason
        case .option(let what, let reason): return "\(what): \(reason)"
        case .closed: return "the client is closed"
        case .publish(let topic, let reason): return "\(topic): \(reason)"
        }
    }
}

extension MQTTError {
    /// True when libmosquitto itself is missing (69), rather than an option refused (78).
    public var isUnavailable: Bool {
        if case .unavailable = self { return true }
        return false
    }
}
