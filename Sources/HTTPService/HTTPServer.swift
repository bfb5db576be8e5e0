import CMicroHTTPD
import Dispatch
import Foundation

/// A request as a handler sees it: method, path, head size, and its headers and query
/// arguments by name.
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

    /// A request (for tests and for the server).
    public init(
        method: String = "GET", path: String, headBytes: Int = 0, headers: [String: String] = [:],
        arguments: [String: String] = [:]
    ) {
        self.method = method
        self.path = path
        self.headBytes = headBytes
        self.headers = headers
        self.arguments = arguments
    }

    /// The header names a handler may read.
    static let readHeaders = ["authorization", "accept", "last-event-id"]
    /// The query arguments a handler may read.
    static let readArguments = ["since", "until", "device", "share"]
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
/// connection, answering through a handler.
///
/// Contract: the library enforces, before the handler runs, at most `limits.connections`
/// connections (more are refused at once), a request head within `limits.timeout` seconds
/// however slowly it trickles, `limits.timeout` seconds of silence at most, and a bounded
/// request head (its buffers). ``stop()`` ends every event stream, then every connection.
public final class HTTPServer: @unchecked Sendable {
    /// The server's own limits.
    public struct Limits: Sendable {
        /// Connections at once.
        public var connections = 64
        /// Seconds of silence, and seconds for a whole request head.
        public var timeout = 10
        /// Bytes of buffers per connection.
        public var memory = 32 * 1024

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
    public private(set) var port = 0
    // @unchecked: `server` is set once in init and cleared once by stop(), under `lock`.
    private var server: UnsafeMutableRawPointer?
    private let lock = NSLock()
    private let handler: @Sendable (ServedRequest) async -> ServedReply
    private let quick: @Sendable (ServedRequest) -> ServedReply?
    private let streams = StreamRegistry()
    private let onStop: @Sendable () -> Void

    /// Starts listening on `host`:`port` and answers every request with `quick` when it has
    /// an answer at once, else with `handler`, on the connection's own thread (it may
    /// block). `onStop` runs at ``stop()``, after the event streams are ended and before the
    /// connections are closed (to wake their readers).
    public init(
        host: String, port: Int, limits: Limits = Limits(), onStop: @escaping @Sendable () -> Void = {},
        quick: @escaping @Sendable (ServedRequest) -> ServedReply? = { _ in nil },
        handler: @escaping @Sendable (ServedRequest) async -> ServedReply
    ) throws(StartError) {
        self.handler = handler
        self.quick = quick
        self.onStop = onStop
        var bound: Int32 = 0
        var error = [CChar](repeating: 0, count: 512)
        let cLimits = airloc_http_limits(
            connections: UInt32(limits.connections), timeout: UInt32(limits.timeout), memory: limits.memory)
        let started = airloc_http_start(
            host, Int32(port), cLimits, HTTPServer.answer, HTTPServer.read, HTTPServer.release,
            Unmanaged.passUnretained(self).toOpaque(), &bound, &error, error.count)
        guard let started else {
            let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw StartError(description: message, libraryMissing: message.contains("needs libmicrohttpd"))
        }
        server = started
        self.port = Int(bound)
    }

    deinit { stop() }

    /// Ends the event streams, stops accepting, closes every connection and waits for them.
    public func stop() {
        lock.lock()
        let running = server
        server = nil
        lock.unlock()
        guard let running else { return }
        streams.endAll()
        onStop()
        airloc_http_stop(running)
    }

    private static let answer: airloc_http_handler = { context, connection, method, path, headBytes, reply in
        guard let context, let connection, let method, let path, let reply else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        var request = ServedRequest(method: String(cString: method), path: String(cString: path), headBytes: headBytes)
        for name in ServedRequest.readHeaders {
            if let value = airloc_http_header(connection, name) { request.headers[name] = String(cString: value) }
        }
        for name in ServedRequest.readArguments {
            if let value = airloc_http_argument(connection, name) { request.arguments[name] = String(cString: value) }
        }
        let response = server.quick(request) ?? server.blocking(request)
        reply.pointee.status = Int32(response.status)
        reply.pointee.content_type = strdup(response.contentType)
        let headers = response.headers.map { "\($0.0): \($0.1)" }.joined(separator: "\n")
        reply.pointee.headers = strdup(headers)
        if let stream = response.stream {
            server.streams.add(stream)
            reply.pointee.stream = Unmanaged.passRetained(StreamHandle(stream)).toOpaque()
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

    /// The handler's answer, waited for on the connection's thread: one of the library's,
    /// never one of Swift's cooperative threads, so blocking it stalls nothing else.
    private func blocking(_ request: ServedRequest) -> ServedReply {
        let box = ReplyBox()
        let done = DispatchSemaphore(value: 0)
        let handler = handler
        Task {
            box.reply = await handler(request)
            done.signal()
        }
        done.wait()
        return box.reply ?? ServedReply(status: 500, text: "no answer\n")
    }

    private final class ReplyBox: @unchecked Sendable {
        // Written by the task before the semaphore is signalled, read after the wait.
        var reply: ServedReply?
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
        let events = Unmanaged<StreamHandle>.fromOpaque(stream).takeRetainedValue().stream
        events.end()
    }
}
