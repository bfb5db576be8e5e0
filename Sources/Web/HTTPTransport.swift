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
        let seconds = timeout.seconds
        // The callback API, not `URLSession.data(for:)`: cancelling a Swift task awaiting
        // that (corelibs-foundation, this toolchain) can deadlock. Its cancellation handler
        // runs under the task's status lock and waits for the session's work queue, while
        // that queue, failing the same request, waits for the status lock to resume it
        // (swift-corelibs-foundation#5412; seen here as `air` hung for 120 s under load).
        // Here nothing waits for the work queue while holding a task's lock: the request
        // settles ``FirstOutcome`` from its completion handler, and is cancelled below,
        // from plain task code, once the answer is known.
        let outcome = FirstOutcome<Result<(Int, Data), WebError>>()
        var request = URLRequest(url: url)
        request.timeoutInterval = seconds
        let task = Self.session.value.dataTask(with: request) { data, response, error in
            if let error {
                outcome.settle(.failure(Self.classify(error, service: service, seconds: seconds)))
            } else {
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                outcome.settle(.success((status, data ?? Data())))
            }
        }
        // The hard deadline races the request without waiting for it.
        let deadline = Task {
            try? await Task.sleep(for: .seconds(seconds + 0.25))
            outcome.settle(.failure(.timedOut(service: service, seconds: seconds)))
        }
        task.resume()
        let result = await withTaskCancellationHandler {
            await outcome.value
        } onCancel: {
            // Settling resumes this very task; not from under its status lock, which the
            // canceller holds while this runs.
            DispatchQueue.global().async { outcome.settle(.failure(.cancelled(service: service))) }
        }
        deadline.cancel()
        task.cancel()  // a no-op once it has completed
        if Task.isCancelled { throw .cancelled(service: service) }
        return try result.get()
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

/// The first of several outcomes to arrive; whoever awaits ``value`` gets it, later ones
/// are dropped. Resumes its waiter exactly once.
final class FirstOutcome<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var settled: Value?
    private var waiter: CheckedContinuation<Value, Never>?

    func settle(_ value: Value) {
        let resume: CheckedContinuation<Value, Never>? = lock.withLock {
            guard settled == nil else { return nil }
            settled = value
            defer { waiter = nil }
            return waiter
        }
        resume?.resume(returning: value)
    }

    var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let ready: Value? = lock.withLock {
                    if let settled { return settled }
                    waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

/// URLSession is documented thread-safe; corelibs-foundation does not mark it Sendable.
private final class SessionBox: @unchecked Sendable {
    let value: URLSession
    init(_ value: URLSession) { self.value = value }
}
