import Foundation

/// What carries one GET to a web service and brings back its answer.
///
/// Contract: `get` returns the status and body of any HTTP answer, or throws a
/// ``WebError`` for a failure below HTTP (refused, DNS, TLS, cut connection) and
/// `.timedOut` when no complete answer came within `timeout`. It never returns later than
/// `timeout` plus a small grace. ``NetworkTransport`` is the network; tests give
/// ``HTTPClient`` a scripted transport, so the logic above the wire (status mapping,
/// retries, deadlines, caches) is exercised in-process with the same code path.
public protocol HTTPTransport: Sendable {
    func get(_ url: URL, service: String, timeout: Duration) async throws(WebError) -> (status: Int, body: Data)
}

/// A request beyond a GET, for the uploads: headers, and a body that makes it a POST.
public struct HTTPRequest: Sendable, Equatable {
    /// Where it goes.
    public var url: URL
    /// Header lines, "Name: value".
    public var headers: [String]
    /// The body; a request with one is a POST.
    public var body: Data?

    /// A request to `url`.
    public init(url: URL, headers: [String] = [], body: Data? = nil) {
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// A server's answer: its status, its body, and its Retry-After header when it sent one.
public struct HTTPAnswer: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// The body as received (at most the transport's limit).
    public var body: Data
    /// The `Retry-After` header's value, as sent (seconds or an HTTP date).
    public var retryAfter: String?

    /// An answer.
    public init(status: Int, body: Data, retryAfter: String? = nil) {
        self.status = status
        self.body = body
        self.retryAfter = retryAfter
    }
}

/// Sends ``HTTPRequest``s (the uploads' POSTs): ``NetworkTransport`` does, and tests
/// inject their own. The contract is ``HTTPTransport``'s, plus: the headers and body are
/// sent as given, and nothing else identifying.
public protocol HTTPSender: Sendable {
    func send(_ request: HTTPRequest, service: String, timeout: Duration) async throws(WebError) -> HTTPAnswer
}
