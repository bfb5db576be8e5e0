import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What carries one GET to a web service and brings back its answer.
///
/// Contract: `get` returns the status and body of any HTTP answer, or throws a
/// ``WebError`` for a failure below HTTP (refused, DNS, TLS, cut connection) and
/// `.timedOut` when no complete answer came within `timeout`. It never returns later than
/// `timeout` plus a small grace. ``URLSessionTransport`` is the network; tests give
/// ``HTTPClient`` a scripted transport, so the logic above the wire (status mapping,
/// retries, deadlines, caches) is exercised in-process with the same code path.
public protocol HTTPTransport: Sendable {
    func get(_ url: URL, service: String, timeout: Duration) async throws(WebError) -> (status: Int, body: Data)
}

/// The network, through one shared `URLSession` for the whole process (a long-running
/// logger must not leak a session per request).
///
/// Nothing but the URL, a generic User-Agent and `Accept` is sent: no cookies, no cache,
/// no identifiers. Each request has a hard total deadline, not only URLSession's idle
/// timeout (a server that trickles bytes would otherwise hold it for ever).
public struct URLSessionTransport: HTTPTransport {
    public init() {}

    private static let session: SessionBox = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.httpAdditionalHeaders = [
            "User-Agent": "airloc/\(AirlocVersion.string)", "Accept": "application/json",
        ]
        return SessionBox(URLSession(configuration: configuration))
    }()

    public func get(_ url: URL, service: String, timeout: Duration) async throws(WebError) -> (
        status: Int, body: Data
    ) {
        let session = Self.session
        let seconds = timeout.seconds
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
                    return .failure(Self.classify(error, service: service, seconds: seconds))
                }
            }
            group.addTask {
                // The hard deadline: URLSession's own timeout is an idle timeout.
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
}

/// URLSession is documented thread-safe; corelibs-foundation does not mark it Sendable.
private final class SessionBox: @unchecked Sendable {
    let value: URLSession
    init(_ value: URLSession) { self.value = value }
}
