import CCurl
import Foundation
import Platform

/// The network: each GET through libcurl, which is loaded on the first request, so a
/// command that never goes online starts without it (docs/performance.md).
///
/// Contract (``HTTPTransport``'s, and): nothing is sent but the URL, a generic
/// User-Agent and `Accept: application/json`; no cookies, no cache, no identifiers.
/// Redirects are followed (five at most, to `http` and `https` only); proxies come from
/// the environment as curl reads them (`https_proxy`, `no_proxy`). An answer larger
/// than ``maximumBody`` is refused as `.undecodable`. Each request has a hard total
/// deadline, not only an idle timeout: a server that trickles bytes cannot hold it.
/// Without libcurl on the system every request fails as `.unreachable`, saying so.
public struct NetworkTransport: HTTPTransport, HTTPSender {
    /// The largest answer accepted, in bytes.
    public var maximumBody: Int

    /// `maximumBody` 64 MiB by default: thirty years of daily climate values, the
    /// largest answer airloc asks for, are about 300 kB.
    public init(maximumBody: Int = 64 << 20) { self.maximumBody = maximumBody }

    /// A GET through libcurl (``HTTPTransport``'s contract).
    public func get(_ url: URL, service: String, timeout: Duration) async throws(WebError) -> (
        status: Int, body: Data
    ) {
        let answer = try await send(HTTPRequest(url: url), service: service, timeout: timeout)
        return (answer.status, answer.body)
    }

    /// A request through libcurl (``HTTPSender``'s contract).
    public func send(_ message: HTTPRequest, service: String, timeout: Duration) async throws(WebError)
        -> HTTPAnswer
    {
        let seconds = timeout.seconds
        guard
            let request = WebRequest(
                url: message.url.absoluteString, timeoutMilliseconds: Int((seconds * 1000).rounded(.up)),
                maximumBody: maximumBody, headers: message.headers, body: message.body)
        else { throw .unreachable(service: service, reason: "out of memory") }
        // libcurl blocks: on a thread of its own, never on the cooperative pool, which a
        // few slow requests would otherwise starve. The hard deadline races the request
        // (libcurl keeps its own; this one holds even if that one slipped), and a
        // cancellation ends the transfer at once.
        let result = await BlockingWork.run(
            "airloc-web", deadline: timeout + .milliseconds(250),
            late: { .failure(WebError.timedOut(service: service, seconds: seconds)) },
            interrupt: { request.cancel() }
        ) { _ in
            request.perform()
            return request.result(service: service, seconds: seconds)
        }
        request.cancel()  // ends the transfer if the deadline won; a no-op once it is done
        if Task.isCancelled { throw .cancelled(service: service) }
        return try result.get()
    }
}

/// One request in C (Sources/CCurl/include/WebRequest.h), owned here: freed when the
/// last of the performing thread and the awaiting task lets go, never while either may
/// still touch it.
// @unchecked: it wraps a C handle (libcurl's request), which one thread performs while the
// task that awaits it only reads its result after the performing thread has let go.
final class WebRequest: @unchecked Sendable {
    private let handle: OpaquePointer
    private let maximumBody: Int

    init?(url: String, timeoutMilliseconds: Int, maximumBody: Int, headers: [String] = [], body: Data? = nil) {
        self.maximumBody = maximumBody
        guard
            let handle = airloc_web_request_new(
                url, "airloc/\(AirlocVersion.string)", timeoutMilliseconds, maximumBody)
        else { return nil }
        self.handle = handle
        for line in headers where airloc_web_request_add_header(handle, line) != 0 { return nil }
        if let body {
            let status = body.withUnsafeBytes { airloc_web_request_set_body(handle, $0.baseAddress, $0.count) }
            if status != 0 { return nil }
        }
    }

    deinit { airloc_web_request_free(handle) }

    /// Blocks until the request ends.
    func perform() { airloc_web_request_perform(handle) }

    /// Safe from any thread, before, during or after ``perform()``.
    func cancel() { airloc_web_request_cancel(handle) }

    /// After ``perform()``: the answer, or why there is none.
    func result(service: String, seconds: Double) -> Result<HTTPAnswer, WebError> {
        let reason = String(cString: airloc_web_request_reason(handle))
        switch airloc_web_request_outcome(handle) {
        case AIRLOC_WEB_ANSWERED:
            var length = 0
            let bytes = airloc_web_request_body(handle, &length)
            let body = bytes.map { Data(bytes: $0, count: length) } ?? Data()
            let retry = String(cString: airloc_web_request_retry_after(handle))
            return .success(
                HTTPAnswer(
                    status: airloc_web_request_status(handle), body: body, retryAfter: retry.isEmpty ? nil : retry))
        case AIRLOC_WEB_TIMED_OUT: return .failure(.timedOut(service: service, seconds: seconds))
        case AIRLOC_WEB_CANCELLED: return .failure(.cancelled(service: service))
        case AIRLOC_WEB_REFUSED: return .failure(.unreachable(service: service, reason: "connection refused"))
        case AIRLOC_WEB_UNKNOWN_HOST: return .failure(.unreachable(service: service, reason: "unknown host"))
        case AIRLOC_WEB_TLS: return .failure(.unreachable(service: service, reason: "TLS failure: \(reason)"))
        case AIRLOC_WEB_LOST: return .failure(.unreachable(service: service, reason: "connection lost"))
        case AIRLOC_WEB_TOO_LARGE:
            let limit = maximumBody % (1 << 20) == 0 ? "\(maximumBody >> 20) MiB" : "\(maximumBody) bytes"
            return .failure(.undecodable(service: service, reason: "the answer is larger than \(limit)"))
        default: return .failure(.unreachable(service: service, reason: reason))
        }
    }
}
