import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A small JSON-over-HTTP(S) client: the only way airloc talks to the network.
///
/// Contract: every request ends within `timeout` (a hard total deadline, not only
/// URLSession's idle timeout), with a decoded value or a ``WebError``. Nothing but the
/// URL and a generic User-Agent is sent: no cookies, no cache, no identifiers.
public struct HTTPClient: Sendable {
    /// Total time allowed for one request, connection to last byte.
    public var timeout: Duration
    private let session: SessionBox

    public init(timeout: Duration = .seconds(10)) {
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        let seconds = timeout.seconds
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.httpAdditionalHeaders = [
            "User-Agent": "airloc/\(AirlocVersion.string)", "Accept": "application/json",
        ]
        self.session = SessionBox(URLSession(configuration: configuration))
    }

    private var timeoutSeconds: Double { timeout.seconds }

    /// GETs `url` and returns the status and body of any HTTP answer; transport failures
    /// and the deadline become ``WebError``.
    public func get(_ url: URL, service: String) async throws(WebError) -> (status: Int, body: Data) {
        let session = self.session
        let seconds = timeoutSeconds
        let outcome: Result<(Int, Data), WebError> = await withTaskGroup(of: Result<(Int, Data), WebError>?.self) {
            group in
            group.addTask {
                do {
                    var request = URLRequest(url: url)
                    request.timeoutInterval = seconds
                    let (data, response) = try await session.value.data(for: request)
                    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                    return .success((status, data))
                } catch {
                    return .failure(HTTPClient.classify(error, service: service, seconds: seconds))
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds + 0.25))
                return Task.isCancelled ? nil : .failure(.timedOut(service: service, seconds: seconds))
            }
            var result: Result<(Int, Data), WebError> = .failure(.cancelled(service: service))
            for await value in group {
                if let value {
                    result = value
                    break
                }
            }
            group.cancelAll()
            return result
        }
        if Task.isCancelled { throw .cancelled(service: service) }
        return try outcome.get()
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

    static func classify(_ error: any Error, service: String, seconds: Double) -> WebError {
        if error is CancellationError { return .cancelled(service: service) }
        guard let urlError = error as? URLError else {
            return .unreachable(service: service, reason: String(describing: error))
        }
        switch urlError.code {
        case .timedOut: return .timedOut(service: service, seconds: seconds)
        case .cancelled: return .cancelled(service: service)
        case .cannotConnectToHost: return .unreachable(service: service, reason: "connection refused")
        case .cannotFindHost, .dnsLookupFailed: return .unreachable(service: service, reason: "unknown host")
        case .notConnectedToInternet: return .unreachable(service: service, reason: "no network connection")
        case .networkConnectionLost: return .unreachable(service: service, reason: "connection lost")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate:
            return .unreachable(service: service, reason: "TLS failure")
        default: return .unreachable(service: service, reason: urlError.localizedDescription)
        }
    }

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

/// URLSession is documented thread-safe; corelibs-foundation does not mark it Sendable.
private final class SessionBox: @unchecked Sendable {
    let value: URLSession
    init(_ value: URLSession) { self.value = value }
}

extension Duration {
    /// The duration in seconds, as a Double (for APIs that take TimeInterval).
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
