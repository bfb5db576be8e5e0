import Foundation
import Platform

/// A small JSON-over-HTTP(S) client: the only way airloc talks to the network.
///
/// Contract: every request ends within `timeout` (a hard total deadline), with a decoded
/// value or a ``WebError``. What goes over the wire is the `transport`'s business
/// (``NetworkTransport`` by default); the deadlines and retry pauses of
/// ``get(_:service:retrying:deadline:attempts:random:)`` read and wait on `time`. Both
/// are injected so the logic above the wire is tested without the network or the clock.
public struct HTTPClient: Sendable {
    /// Total time allowed for one request, connection to last byte.
    public var timeout: Duration
    /// What carries the requests (the network, or scripted services in tests).
    public var transport: any HTTPTransport
    /// The clock deadlines and pauses use.
    public var time: any TimeSource

    /// A client with a per-request `timeout`.
    public init(
        timeout: Duration = .seconds(10), transport: any HTTPTransport = NetworkTransport(),
        time: any TimeSource = SystemTime()
    ) {
        self.timeout = timeout
        self.transport = transport
        self.time = time
    }

    /// GETs `url` and returns the status and body of any HTTP answer; transport failures
    /// and the deadline become ``WebError``.
    public func get(_ url: URL, service: String) async throws(WebError) -> (status: Int, body: Data) {
        try await transport.get(url, service: service, timeout: timeout)
    }

    /// GETs `url`, maps HTTP errors (with the service's own `reason`) to ``WebError``
    /// and decodes a 2xx body as `T`.
    public func getJSON<T: Decodable>(_ type: T.Type, from url: URL, service: String) async throws(WebError) -> T {
        let (status, body) = try await get(url, service: service)
        try HTTPClient.check(status: status, body: body, service: service)
        do {
            return try JSONDecoder().decode(T.self, from: body)
        } catch {
            throw .undecodable(service: service, reason: HTTPClient.describe(decodingError: error, body: body))
        }
    }

    /// Turns a non-2xx status into the matching ``WebError``.
    public static func check(status: Int, body: Data, service: String) throws(WebError) {
        switch status {
        case 200..<300: return
        case 429: throw .rateLimited(service: service, reason: ErrorBody.reason(in: body))
        case 400..<500: throw .rejected(service: service, status: status, reason: ErrorBody.reason(in: body))
        case 500..<600: throw .serverError(service: service, status: status, reason: ErrorBody.reason(in: body))
        default: throw .undecodable(service: service, reason: "unexpected HTTP status \(status)")
        }
    }

    /// Why `body` did not decode, in words that name the field (for `.undecodable`).
    public static func describe(decodingError error: any Error, body: Data) -> String {
        if body.isEmpty { return "empty body" }
        if (try? JSONSerialization.jsonObject(with: body)) == nil {
            return body.count < 2 || body.first != UInt8(ascii: "{") && body.first != UInt8(ascii: "[")
                ? "not JSON" : "truncated or malformed JSON"
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, _)?: return "missing field \(key.stringValue)"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            return "wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default: return "unexpected JSON shape"
        }
    }
}
