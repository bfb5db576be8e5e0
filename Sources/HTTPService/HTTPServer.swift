import CMicroHTTPD
import Dispatch
import Foundation
import Platform

/// A request as a handler sees it: method, path, head size, the client's address, and its
/// headers and query arguments by name.
public struct ServedRequest: Sendable {
    /// `GET`, `HEAD`, …
    public var method: String
    /// The path, without the query.
    public var path: String
    /// The request line and headers as sent, in bytes.
    public var headBytes: Int
    /// Header values by lower-cased name (only those a handler reads are kept).
    public var headers: [String: String]
    /// Query arguments by name.
    public var arguments: [String: String]
    /// The client's address ("192.0.2.7", "::1").
    public var client: String

    /// A request (for tests and for the server).
    public init(
        method: String = "GET", path: String, headBytes: Int = 0, headers: [String: String] = [:],
        arguments: [String: String] = [:], client: String = "127.0.0.1"
    ) {
        self.method = method
        self.path = path
        self.headBytes = headBytes
        self.headers = headers
        self.arguments = arguments
        self.client = client
    }

    /// The header names a handler may read.
    static let readHeaders = ["authorization", "accept", "last-event-id"]
    /// The query arguments a handler may read.
    static let readArguments = ["since", "until", "device", "share", "after", "width"]
}

/// What a handler answers: a status, a type, headers, and a body or an event stream.
public struct ServedReply: Sendable {
    /// The status code.
    public var status: Int
    /// The Content-Type.
    public var contentType: String
    /// More headers.
    public var headers: [(String, String)] = []
    /// The body (ignored for HEAD by the library, which sends the headers alone).
    public var body: Data
    /// An event stream instead of a body.
    public var stream: (any ServedStream)?

    /// A response.
    public init(status: Int, contentType: String, body: Data, headers: [(String, String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    /// A text response.
    public init(status: Int, contentType: String = "text/plain; charset=utf-8", text: String) {
        self.init(status: status, contentType: contentType, body: Data(text.utf8))
    }

    /// The body as text (tests).
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// An HTTP server on libmicrohttpd (the one file that touches it), a thread per
/// connection, answering through a handler on that thread.
///
/// Contract: the library enforces, before the handler runs, at most `limits.connections`
/// connections and `limits.perClient` from one address (more are refused at once), a
/// request head within `limits.headTimeout` seconds however slowly it trickles,
/// `limits.timeout` seconds of silence at most, and a bounded request head (its buffers).
/// An event stream beyond `limits.streams` at once, or `limits.streamsPerClient` from one
/// address, is answered 503 (`Retry-After`) instead: streams never hold the slots of
/// ordinary requests. The handler runs on the connection's own thread, never on Swift's
/// cooperative pool, so a handler that blocks (a database, a large read) holds only its
/// own connection. ``stop()`` ends every event stream, then every connection.
public final class HTTPServer: Sendable {
    /// The server's own limits.
    public struct Limits: Sendable {
        /// Connections at once.
        public var connections = 128
        /// Connections at once from one client address.
        public var perClient = 16
        /// Seconds of silence.
        public var timeout = 10
        /// Seconds for a whole request head.
        public var headTimeout = 5
        /// Bytes of buffers per connection.
        public var memory = 32 * 1024
        /// Event streams at once.
        public var streams = 32
        /// Event streams at once from one client address.
        public var streamsPerClient = 4

        /// The documented limits (docs/serve.md).
        public init() {}
    }

    /// Why a server did not start.
    public struct StartError: Error, CustomStringConvertible {
        /// What went wrong, in words.
        public var description: String
        /// The library is missing (exit 69) rather than the address (exit 78).
        public var libraryMissing: Bool
    }

    /// The port it listens on.
    public let port: Int
    /// libmicrohttpd's daemon while it runs; nil once stopped.
    private let server: Lock<UnsafeMutableRawPointer?>
    private let answering: Answering
    private let onStop: @Sendable () -> Void

    /// What libmicrohttpd's threads call back into (the context it holds): made before
    /// the daemon starts, kept by the server until it has stopped.
    private final class Answering: Sendable {
        let handler: @Sendable (ServedRequest) -> ServedReply
        let quick: @Sendable (ServedRequest) -> ServedReply?
        let streams: StreamRegistry

        init(
            handler: @escaping @Sendable (ServedRequest) -> ServedReply,
            quick: @escaping @Sendable (ServedRequest) -> ServedReply?, streams: StreamRegistry
        ) {
            (self.handler, self.quick, self.streams) = (handler, quick, streams)
        }
    }

    /// Starts listening on `host`:`port` and answers every request with `quick` when it has
    /// an answer at once, else with `handler`, both on the connection's own thread (they may
    /// block). `onStop` runs at ``stop()``, after the event streams are ended and before the
    /// connections are closed (to wake their readers).
    public init(
        host: String, port: Int, limits: Limits = Limits(), onStop: @escaping @Sendable () -> Void = {},
        quick: @escaping @Sendable (ServedRequest) -> ServedReply? = { _ in nil },
        handler: @escaping @Sendable (ServedRequest) -> ServedReply
    ) throws(StartError) {
        let answering = Answering(
            handler: handler, quick: quick,
            streams: StreamRegistry(limit: limits.streams, perClient: limits.streamsPerClient))
        var bound: Int32 = 0
        var error = [CChar](repeating: 0, count: 512)
        let cLimits = airloc_http_limits(
            connections: UInt32(limits.connections), per_client: UInt32(limits.perClient),
            timeout: UInt32(limits.timeout), head_timeout: UInt32(limits.headTimeout), memory: limits.memory)
        let started = airloc_http_start(
            host, Int32(port), cLimits, HTTPServer.answer, HTTPServer.read, HTTPServer.release,
            Unmanaged.passUnretained(answering).toOpaque(), &bound, &error, error.count)
        guard let started else {
            let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw StartError(description: message, libraryMissing: message.contains("needs libmicrohttpd"))
        }
        server = Lock(started)
        self.port = Int(bound)
        self.answering = answering
        self.onStop = onStop
    }

    deinit { stop() }

    /// Ends the event streams, stops accepting, closes every connection and waits for them.
    public func stop() {
        guard
            let running = server.withLock({ server in
                defer { server = nil }; return server
            })
        else { return }
        answering.streams.endAll()
        onStop()
        airloc_http_stop(running)
    }

    private static let answer: airloc_http_handler = { context, connection, method, path, headBytes, reply in
        guard let context, let connection, let method, let path, let reply else { return }
        let server = Unmanaged<Answering>.fromOpaque(context).takeUnretainedValue()
        var address = [CChar](repeating: 0, count: 64)
        airloc_http_client(connection, &address, address.count)
        var request = ServedRequest(
            method: String(cString: method), path: String(cString: path), headBytes: headBytes,
            client: String(decoding: address.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        for name in ServedRequest.readHeaders {
            if let value = airloc_http_header(connection, name) { request.headers[name] = String(cString: value) }
        }
        for name in ServedRequest.readArguments {
            if let value = airloc_http_argument(connection, name) { request.arguments[name] = String(cString: value) }
        }
        var response = server.quick(request) ?? server.handler(request)
        if let stream = response.stream, !server.streams.add(stream, client: request.client) {
            // Too many streams at once (from this client, or in all): said, never held.
            stream.end()
            response = ServedReply(status: 503, text: "too many event streams open; try again later\n")
            response.headers.append(("Retry-After", "30"))
        }
        reply.pointee.status = Int32(response.status)
        reply.pointee.content_type = strdup(response.contentType)
        let headers = response.headers.map { "\($0.0): \($0.1)" }.joined(separator: "\n")
        reply.pointee.headers = strdup(headers)
        if let stream = response.stream {
            let (streams, client) = (server.streams, request.client)
            reply.pointee.stream = Unmanaged.passRetained(
                StreamHandle(stream) { streams.remove(stream, client: client) }
            ).toOpaque()
            reply.pointee.stream_timeout = UInt32(stream.silenceLimit)
        } else {
            let body = malloc(max(1, response.body.count))!.assumingMemoryBound(to: CChar.self)
            response.body.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { memcpy(body, base, bytes.count) }
            }
            reply.pointee.body = body
            reply.pointee.body_length = response.body.count
        }
    }

    private static let read: airloc_http_stream_read = { stream, buffer, capacity in
        guard let stream, let buffer else { return -1 }
        let events = Unmanaged<StreamHandle>.fromOpaque(stream).takeUnretainedValue().stream
        guard let bytes = events.next(capacity: capacity) else { return -1 }
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress { memcpy(buffer, base, raw.count) }
        }
        return bytes.count
    }

    private static let release: airloc_http_stream_release = { stream in
        guard let stream else { return }
        let handle = Unmanaged<StreamHandle>.fromOpaque(stream).takeRetainedValue()
        handle.stream.end()
        handle.released()
    }
}
