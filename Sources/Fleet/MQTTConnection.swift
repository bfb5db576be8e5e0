import CMosquitto
import Foundation

/// A connection to an MQTT broker: the only place airloc touches libmosquitto.
///
/// Contract:
/// - Connects in the background and reconnects on its own (1 s doubling to 30 s), on a
///   network thread of its own (libmosquitto's own loop thread gives up for good when the
///   very first connection fails); a broker that is down is waited for, never an error. A refused connection (bad credentials, a
///   TLS failure) is remembered in ``lastError`` and reported by the caller.
/// - A persistent session (clean session off) under a fixed client id, and QoS 1: a
///   message counts as delivered only when its PUBACK arrived (``takeAcknowledged()``).
///   libmosquitto keeps unacknowledged messages in memory only, so the caller keeps the
///   truth (the logbook) and publishes again what was not acknowledged.
/// - The will is set before connecting: the broker publishes it if airloc dies.
/// - Callbacks run on libmosquitto's thread; every state is behind one lock.
public final class MQTTConnection: @unchecked Sendable {
    public struct Options: Sendable {
        public var host: String
        public var port: Int
        public var clientID: String
        public var username: String?
        public var password: String?
        public var tls: Bool = false
        public var caFile: String?
        public var certFile: String?
        public var keyFile: String?
        public var keepalive: Int = 30
        /// A session the broker keeps across disconnects (the logger's); off for a probe.
        public var persistentSession = true
        /// At most this many QoS 1 messages in flight (unacknowledged) at once.
        public var inFlight: Int = 100
        public var will: (topic: String, payload: String, retain: Bool)?

        public init(host: String, port: Int, clientID: String) {
            self.host = host
            self.port = port
            self.clientID = clientID
        }
    }

    private let lock = NSLock()
    private var handle: OpaquePointer?
    private var connected = false
    private var connections = 0
    private var acknowledged: [Int32] = []
    private var messages: [(topic: String, payload: String)] = []
    private var failure: String?
    /// The last TLS error libmosquitto logged ("certificate verify failed"): its return
    /// code alone says only "A TLS error occurred".
    private var tlsDetail: String?
    private var refused = false
    /// A CONNACK refusal just happened: the disconnect that follows says less.
    private var rejected = false
    private var stopping = false
    private let stopped = DispatchSemaphore(value: 0)
    private var running = false
    public let options: Options

    /// Sets up the client (nothing is sent yet). Throws when an option is unusable
    /// (a CA file that cannot be read), with the library's reason.
    public init(options: Options) throws(FleetError) {
        self.options = options
        if let missing = airloc_mosquitto_load() { throw .setup(String(cString: missing)) }
        airloc_mosquitto_lib_init()
        guard let client = airloc_mosquitto_new(options.clientID, !options.persistentSession, nil) else {
            throw .setup("cannot create an MQTT client: \(String(cString: strerror(errno)))")
        }
        handle = client
        airloc_mosquitto_user_data_set(client, Unmanaged.passUnretained(self).toOpaque())
        airloc_mosquitto_int_option(client, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311))
        airloc_mosquitto_int_option(client, MOSQ_OPT_SEND_MAXIMUM, Int32(options.inFlight))
        airloc_mosquitto_max_inflight_messages_set(client, UInt32(options.inFlight))
        airloc_mosquitto_reconnect_delay_set(client, 1, 30, true)
        // Threaded: publish() and subscribe() from other threads only queue the packet
        // and wake the network thread, which does every read and write. Without it they
        // write to the socket themselves, and an SSL connection is not safe for a write
        // on one thread while another reads (a crash in libssl, seen under TLS).
        airloc_mosquitto_threaded_set(client, true)
        if let username = options.username {
            try check(airloc_mosquitto_username_pw_set(client, username, options.password), "username/password")
        }
        if options.tls {
            try check(
                airloc_mosquitto_tls_set(client, options.caFile, nil, options.certFile, options.keyFile, nil),
                "TLS setup")
        }
        if let will = options.will {
            let bytes = Array(will.payload.utf8)
            try check(
                airloc_mosquitto_will_set(client, will.topic, Int32(bytes.count), bytes, 1, will.retain), "the will")
        }
        airloc_mosquitto_log_callback_set(client) { _, object, level, text in
            guard level == MOSQ_LOG_ERR, let text, let connection = MQTTConnection.from(object) else { return }
            let line = String(cString: text)
            guard line.hasPrefix("OpenSSL Error") else { return }
            // "OpenSSL Error[0]: error:0A000086:SSL routines::certificate verify failed"
            let reason = line.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? line
            connection.lock.withLock { connection.tlsDetail = reason }
        }
        airloc_mosquitto_connect_callback_set(client) { _, object, code in
            MQTTConnection.from(object)?.connectedCallback(code)
        }
        airloc_mosquitto_disconnect_callback_set(client) { _, object, code in
            MQTTConnection.from(object)?.disconnectedCallback(code)
        }
        airloc_mosquitto_publish_callback_set(client) { _, object, mid in
            MQTTConnection.from(object)?.lockedAppend(acknowledged: mid)
        }
        airloc_mosquitto_message_callback_set(client) { _, object, message in
            guard let message, let connection = MQTTConnection.from(object) else { return }
            let topic = String(cString: message.pointee.topic)
            let payload =
                message.pointee.payload.map {
                    String(
                        decoding: UnsafeRawBufferPointer(start: $0, count: Int(message.pointee.payloadlen)),
                        as: UTF8.self)
                } ?? ""
            connection.lockedAppend(message: (topic, payload))
        }
    }

    deinit {
        if let handle, !running { airloc_mosquitto_destroy(handle) }
    }

    private static func from(_ object: UnsafeMutableRawPointer?) -> MQTTConnection? {
        object.map { Unmanaged<MQTTConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    private func check(_ code: Int32, _ what: String) throws(FleetError) {
        guard code == MOSQ_ERR_SUCCESS.rawValue else {
            let reason =
                code == MOSQ_ERR_ERRNO.rawValue
                ? String(cString: strerror(errno)) : String(cString: airloc_mosquitto_strerror(code))
            throw .setup("\(what): \(reason)")
        }
    }

    /// Starts the network thread: connect, read and write, reconnect with back-off.
    public func start() throws(FleetError) {
        guard handle != nil else { return }
        running = true
        let thread = Thread { [self] in
            if let handle = self.handle { networkLoop(handle) }
            stopped.signal()
        }
        thread.name = "airloc-mqtt"
        thread.start()
    }

    private func networkLoop(_ handle: OpaquePointer) {
        var delay: UInt32 = 1
        var everConnected = false
        var needConnect = true
        while !lock.withLock({ stopping }) {
            if needConnect {
                let code =
                    everConnected
                    ? airloc_mosquitto_reconnect(handle)
                    : airloc_mosquitto_connect(handle, options.host, Int32(options.port), Int32(options.keepalive))
                guard code == MOSQ_ERR_SUCCESS.rawValue else {
                    recordFailure(code)
                    pause(seconds: delay)
                    delay = min(delay * 2, 30)
                    continue
                }
                everConnected = true
                needConnect = false
            }
            let code = airloc_mosquitto_loop(handle, 200, 1)
            if code != MOSQ_ERR_SUCCESS.rawValue {
                if lock.withLock({ stopping }) { break }
                // A TLS handshake that fails after the TCP connection did fails here.
                recordFailure(code)
                lock.withLock { connected = false }
                needConnect = true
                pause(seconds: delay)
                delay = min(delay * 2, 30)
            } else if lock.withLock({ connected }) {
                delay = 1
            }
        }
    }

    /// Keeps why the broker cannot be reached, in words a user can act on.
    private func recordFailure(_ code: Int32) {
        let errorNumber = errno
        lock.withLock {
            // A refusal (bad credentials) said more than the disconnect that follows it.
            guard !rejected, !connected else {
                rejected = false
                return
            }
            let reason: String
            if code == MOSQ_ERR_TLS.rawValue {
                let detail = tlsDetail ?? "the handshake failed"
                reason =
                    "TLS with \(options.host):\(options.port) failed: \(detail) (nothing was sent; "
                    + "check [mqtt] ca-file and that the broker speaks TLS on that port)"
            } else {
                let cause =
                    code == MOSQ_ERR_ERRNO.rawValue
                    ? String(cString: strerror(errorNumber)) : String(cString: airloc_mosquitto_strerror(code))
                reason = "cannot reach the broker \(options.host):\(options.port) (\(cause))"
            }
            failure = reason
            tlsDetail = nil
        }
    }

    /// Sleeps up to `seconds`, waking early when the connection is being closed.
    private func pause(seconds: UInt32) {
        for _ in 0..<(seconds * 10) where !lock.withLock({ stopping }) { usleep(100_000) }
    }

    private func connectedCallback(_ code: Int32) {
        lock.withLock {
            if code == 0 {
                connected = true
                connections += 1
                failure = nil
            } else {
                connected = false
                rejected = true
                failure = "the broker refused the connection: \(String(cString: airloc_mosquitto_connack_string(code)))"
                // 4: bad user name or password, 5: not authorised — retrying cannot help.
                refused = code == 4 || code == 5
            }
        }
    }

    private func disconnectedCallback(_ code: Int32) {
        lock.withLock {
            connected = false
            if code != 0 && failure == nil { failure = "lost the connection to the broker" }
        }
    }

    private func lockedAppend(acknowledged mid: Int32) { lock.withLock { acknowledged.append(mid) } }
    private func lockedAppend(message: (topic: String, payload: String)) { lock.withLock { messages.append(message) } }

    public var isConnected: Bool { lock.withLock { connected } }
    /// How many times a connection was made (a change means: say hello again).
    public var connectionCount: Int { lock.withLock { connections } }
    public var lastError: String? { lock.withLock { failure } }
    /// True when the broker rejected the credentials (a configuration matter).
    public var credentialsRefused: Bool { lock.withLock { refused } }

    /// Message ids whose PUBACK arrived since the last call.
    public func takeAcknowledged() -> [Int32] {
        lock.withLock {
            defer { acknowledged.removeAll() }
            return acknowledged
        }
    }

    /// Messages received on subscribed topics since the last call.
    public func takeMessages() -> [(topic: String, payload: String)] {
        lock.withLock {
            defer { messages.removeAll() }
            return messages
        }
    }

    /// At most `limit` of the messages received, oldest first; the rest wait for the next call.
    public func takeMessages(limit: Int) -> [(topic: String, payload: String)] {
        lock.withLock {
            let taken = Array(messages.prefix(limit))
            messages.removeFirst(taken.count)
            return taken
        }
    }

    /// Queues `payload` on `topic` with QoS 1; returns its message id.
    public func publish(_ topic: String, _ payload: String, retain: Bool = false) throws(FleetError) -> Int32 {
        guard let handle else { throw .setup("the client is closed") }
        var mid: Int32 = 0
        let bytes = Array(payload.utf8)
        let code = airloc_mosquitto_publish(handle, &mid, topic, Int32(bytes.count), bytes, 1, retain)
        guard code == MOSQ_ERR_SUCCESS.rawValue else {
            throw .publish("\(topic): \(String(cString: airloc_mosquitto_strerror(code)))")
        }
        return mid
    }

    public func subscribe(_ topic: String) {
        guard let handle else { return }
        airloc_mosquitto_subscribe(handle, nil, topic, 1)
    }

    /// Publishes `last` (e.g. "offline"), disconnects cleanly (no will), stops the thread.
    public func close(last: (topic: String, payload: String)? = nil) {
        guard let handle else { return }
        if let last, isConnected, let mid = try? publish(last.topic, last.payload, retain: true) {
            // Let the network thread deliver it before the DISCONNECT (up to 2 s).
            for _ in 0..<80 where !lock.withLock({ acknowledged.contains(mid) }) { usleep(25_000) }
        }
        let wasConnected = isConnected
        lock.withLock { stopping = true }
        if running { stopped.wait() }
        running = false
        // The network thread is gone: this thread alone may touch the connection now.
        if wasConnected && airloc_mosquitto_disconnect(handle) == MOSQ_ERR_SUCCESS.rawValue {
            // Write the DISCONNECT (the broker then drops the will); the library closes
            // the socket after it, and the loop then reports no connection.
            for _ in 0..<10 where airloc_mosquitto_loop(handle, 100, 1) == MOSQ_ERR_SUCCESS.rawValue {}
        }
        airloc_mosquitto_destroy(handle)
        self.handle = nil
    }
}

/// Why publishing cannot work as configured.
public enum FleetError: Error, Sendable, CustomStringConvertible {
    case setup(String)
    case publish(String)
    case configuration(String)

    public var description: String {
        switch self {
        case .setup(let reason), .publish(let reason), .configuration(let reason): return reason
        }
    }
}
