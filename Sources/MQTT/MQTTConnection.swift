import CMosquitto
import Foundation
import Platform
import Synchronization

/// A connection to an MQTT broker through libmosquitto: the only place airloc touches it
/// (``MQTTClient`` has the contract).
///
/// How: one network thread of its own (``BlockingWork``) does every connect, read and
/// write with `mosquitto_loop`, which waits on the socket and on libmosquitto's own wake-up
/// (a publish from another thread writes to it), so it wakes for traffic, not on a timer.
/// Threaded mode lets `publish` and `subscribe` be called from any thread: they queue the
/// packet and wake the loop. Reconnection is airloc's (``Backoff``), not libmosquitto's:
/// its own gives up for good when the very first connection fails.
package final class MQTTConnection: MQTTClient, Sendable {
    package let options: MQTTOptions
    package let name: ServiceName
    package let events: AsyncStream<MQTTEvent>
    private let post: AsyncStream<MQTTEvent>.Continuation
    /// The handle; nil once destroyed. Held while another thread calls into it, so that the
    /// network thread cannot destroy it meanwhile. Callbacks never take this lock.
    private let handle: Lock<Handle?>
    private let state = Lock(LinkState())
    private let doorbell = Doorbell()
    private let started = Atomic<Bool>(false)

    /// libmosquitto's client.
    // @unchecked: a C handle, thread-safe in libmosquitto's threaded mode, destroyed under the mutex.
    private struct Handle: @unchecked Sendable {
        let client: OpaquePointer
    }

    /// What the callbacks (on the network thread) and the callers share.
    private struct LinkState {
        var connected = false
        var generation = 0
        /// The connection was accepted since the loop last looked: the back-off starts again.
        var freshlyConnected = false
        var stopping = false
        var paused = false
        /// Refused credentials: retrying cannot help.
        var refusedForGood = false
        /// A CONNACK refusal was reported: the disconnect that follows says nothing more.
        var rejected = false
        /// The connection was up when the stop came: the farewell is (being) published.
        var farewellPending = false
        var farewell: MQTTMessageID?
        var farewellAcknowledged = false
        /// An established connection dropped (the disconnect callback saw it).
        var dropped = false
        /// The last TLS error libmosquitto logged ("certificate verify failed"): its return
        /// code alone says only "A TLS error occurred".
        var tlsDetail: String?
    }

    init(options: MQTTOptions, name: ServiceName) throws(MQTTError) {
        self.options = options
        self.name = name
        (events, post) = AsyncStream<MQTTEvent>.makeStream()
        if let missing = airloc_mosquitto_load() { throw .unavailable(String(cString: missing)) }
        airloc_mosquitto_lib_init()
        guard let client = airloc_mosquitto_new(options.clientID, !options.persistentSession, nil) else {
            throw .option(what: "the MQTT client", reason: String(cString: strerror(errno)))
        }
        handle = Lock(Handle(client: client))
        airloc_mosquitto_user_data_set(client, Unmanaged.passUnretained(self).toOpaque())
        airloc_mosquitto_int_option(client, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311))
        airloc_mosquitto_int_option(client, MOSQ_OPT_SEND_MAXIMUM, Int32(options.inFlight))
        airloc_mosquitto_max_inflight_messages_set(client, UInt32(options.inFlight))
        // Without threaded mode, publish() from another thread would write to the socket
        // itself, and an SSL connection is not safe for a write on one thread while another
        // reads (a crash in libssl, seen under TLS).
        airloc_mosquitto_threaded_set(client, true)
        do throws(MQTTError) {
            try setUp(client)
        } catch {
            airloc_mosquitto_destroy(client)
            handle.withLock { $0 = nil }
            throw error
        }
    }

    private func setUp(_ client: OpaquePointer) throws(MQTTError) {
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
            connection.state.withLock { $0.tlsDetail = reason }
        }
        airloc_mosquitto_connect_callback_set(client) { _, object, code in
            MQTTConnection.from(object)?.connectAnswered(code)
        }
        airloc_mosquitto_disconnect_callback_set(client) { _, object, code in
            MQTTConnection.from(object)?.disconnected(code)
        }
        airloc_mosquitto_publish_callback_set(client) { _, object, mid in
            MQTTConnection.from(object)?.acknowledged(mid)
        }
        airloc_mosquitto_message_callback_set(client) { _, object, message in
            guard let message, let connection = MQTTConnection.from(object) else { return }
            let topic = String(cString: message.pointee.topic)
            let length = Int(message.pointee.payloadlen)
            // Judged before any copy: a hostile payload costs libmosquitto's one buffer only.
            if let limit = connection.options.maximumPayload, length > limit {
                connection.post.yield(.unreadable(topic: topic, problem: .tooLarge(bytes: length, limit: limit)))
                return
            }
            let bytes = UnsafeRawBufferPointer(
                start: message.pointee.payload, count: message.pointee.payload == nil ? 0 : length)
            // Invalid UTF-8 is refused, not repaired: a row stored with U+FFFD in it is not the row sent.
            guard let payload = String(validating: bytes, as: UTF8.self) else {
                connection.post.yield(.unreadable(topic: topic, problem: .notUTF8))
                return
            }
            connection.post.yield(.message(topic: topic, payload: payload, retained: message.pointee.retain))
        }
    }

    deinit {
        // Never run: the network thread, which destroys it otherwise, never started.
        handle.withLock { handle in
            if let handle { airloc_mosquitto_destroy(handle.client) }
            handle = nil
        }
    }

    private static func from(_ object: UnsafeMutableRawPointer?) -> MQTTConnection? {
        object.map { Unmanaged<MQTTConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    private func check(_ code: Int32, _ what: String) throws(MQTTError) {
        guard code == MOSQ_ERR_SUCCESS.rawValue else { throw .option(what: what, reason: reason(code)) }
    }

    private func reason(_ code: Int32, errorNumber: Int32 = errno) -> String {
        code == MOSQ_ERR_ERRNO.rawValue
            ? String(cString: strerror(errorNumber)) : String(cString: airloc_mosquitto_strerror(code))
    }

    // MARK: the client's calls, from any thread

    package func publish(_ topic: String, _ payload: String, retain: Bool) throws(MQTTError) -> MQTTMessageID {
        let bytes = Array(payload.utf8)
        var mid: Int32 = 0
        let code: Int32? = handle.withLock { handle in
            handle.map { airloc_mosquitto_publish($0.client, &mid, topic, Int32(bytes.count), bytes, 1, retain) }
        }
        guard let code else { throw .closed }
        guard code == MOSQ_ERR_SUCCESS.rawValue else { throw .publish(topic: topic, reason: reason(code)) }
        return mid
    }

    package func subscribe(_ topic: String) throws(MQTTError) {
        let code: Int32? = handle.withLock { handle in
            handle.map { airloc_mosquitto_subscribe($0.client, nil, topic, 1) }
        }
        guard let code else { throw .closed }
        guard code == MOSQ_ERR_SUCCESS.rawValue else { throw .publish(topic: topic, reason: reason(code)) }
    }

    package func pause() {
        let wasConnected: Bool = state.withLock { state in
            state.paused = true
            return state.connected
        }
        if wasConnected { disconnectNow() }
        doorbell.ring()
    }

    package func resume() {
        state.withLock { $0.paused = false }
        doorbell.ring()
    }

    // MARK: the service

    package func run(_ context: ServiceContext) async throws(ServiceFailure) {
        // One network thread per connection, ever: a second run would fight the first.
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        context.whenStopping { [self] in beginClose() }
        await BlockingWork.run("airloc-mqtt", interrupt: { [self] in beginClose() }) { [self] _ in
            networkLoop()
        }
    }

    /// The stop: the farewell goes out now (it wakes the loop), the loop then waits for its
    /// acknowledgement and disconnects. Without a farewell the DISCONNECT is queued now:
    /// that is what wakes a loop waiting on the socket (the doorbell wakes only a back-off),
    /// so a stop never waits out the loop's one-second poll.
    private func beginClose() {
        let (farewell, connected): (MQTTOptions.Message?, Bool) = state.withLock { state in
            guard !state.stopping else { return (nil, false) }
            state.stopping = true
            state.farewellPending = state.connected && options.farewell != nil
            return (state.farewellPending ? options.farewell : nil, state.connected)
        }
        if let farewell {
            let mid = try? publish(farewell.topic, farewell.payload, retain: farewell.retain)
            state.withLock { state in
                state.farewell = mid
                state.farewellPending = mid != nil
            }
            if mid == nil { disconnectNow() }
        } else if connected {
            disconnectNow()
        }
        doorbell.ring()
    }

    /// Queues a DISCONNECT and wakes the loop, which writes it and leaves the broker.
    private func disconnectNow() {
        handle.withLock { handle in _ = handle.map { airloc_mosquitto_disconnect($0.client) } }
    }

    private enum Ended { case stop, pause, lost }

    /// The network thread: connect, serve, back off, until the stop.
    private func networkLoop() {
        guard let client = handle.withLock({ $0?.client }) else { return }
        // The reconnect's one back-off: a broker that is down is waited for, never an error.
        var backoff = Backoff(first: .seconds(1), cap: .seconds(30))
        var everConnected = false
        while true {
            let (stopping, idle) = state.withLock { ($0.stopping, $0.paused || $0.refusedForGood) }
            if stopping { break }
            if idle {
                doorbell.wait(seconds: .infinity)
                continue
            }
            let code =
                everConnected
                ? airloc_mosquitto_reconnect(client)
                : airloc_mosquitto_connect(client, options.host, Int32(options.port), Int32(options.keepalive))
            if code == MOSQ_ERR_SUCCESS.rawValue {
                everConnected = true
                let ended = serve(client, backoff: &backoff)
                if ended == .stop { break }
                if ended == .pause {
                    leave(client)
                    continue
                }
            } else {
                failed(code, errorNumber: errno)
            }
            doorbell.wait(seconds: backoff.failed().seconds)
        }
        close(client)
    }

    /// Reads and writes one connection until it drops, or the stop or a pause.
    private func serve(_ client: OpaquePointer, backoff: inout Backoff) -> Ended {
        while true {
            let code = airloc_mosquitto_loop(client, 1000, 1)
            let errorNumber = errno
            let (stopping, paused, fresh) = state.withLock { state in
                defer { state.freshlyConnected = false }
                return (state.stopping, state.paused, state.freshlyConnected)
            }
            if fresh { backoff.succeeded() }
            if stopping { return .stop }
            if paused { return .pause }
            if code != MOSQ_ERR_SUCCESS.rawValue {
                // A TLS handshake that fails after the TCP connection did fails here.
                failed(code, errorNumber: errorNumber)
                return .lost
            }
        }
    }

    /// A connection attempt or an established connection failed: said once, as a fact.
    private func failed(_ code: Int32, errorNumber: Int32) {
        let report: MQTTEvent? = state.withLock { state in
            let wasConnected = state.connected || state.dropped
            state.connected = false
            state.dropped = false
            // A refusal (bad credentials) said more than the disconnect that follows it.
            if state.rejected {
                state.rejected = false
                return nil
            }
            let place = "\(options.host):\(options.port)"
            // A broker that requires a client certificate accepts a TLS 1.3 handshake
            // without one and then closes with an alert: the library says "connection lost",
            // before any CONNACK, which is a failed handshake to the user.
            let closedInHandshake =
                options.tls && !wasConnected && (state.tlsDetail != nil || code == MOSQ_ERR_CONN_LOST.rawValue)
            if code == MOSQ_ERR_TLS.rawValue || closedInHandshake {
                defer { state.tlsDetail = nil }
                return .failed(
                    .tls(
                        place: place,
                        detail: state.tlsDetail
                            ?? (code == MOSQ_ERR_TLS.rawValue
                                ? "the handshake failed" : "the broker closed the connection before accepting it"),
                        clientCertificate: options.certFile != nil))
            }
            if wasConnected { return .disconnected(.lost(place: place)) }
            return .failed(.unreachable(place: place, cause: reason(code, errorNumber: errorNumber)))
        }
        if let report { post.yield(report) }
    }

    /// Paused: the DISCONNECT written, the socket closed, until ``resume()``.
    private func leave(_ client: OpaquePointer) {
        _ = airloc_mosquitto_disconnect(client)
        for _ in 0..<5 where airloc_mosquitto_loop(client, 1000, 1) == MOSQ_ERR_SUCCESS.rawValue {}
        state.withLock { $0.connected = false }
        post.yield(.disconnected(nil))
    }

    /// The stop: the farewell acknowledged (2 s at most), a clean DISCONNECT (the broker then
    /// drops the will), the handle destroyed, the events ended.
    private func close(_ client: OpaquePointer) {
        let deadline = ContinuousClock.now + .seconds(2)
        while state.withLock({ $0.farewellPending && !$0.farewellAcknowledged && $0.connected }) {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { break }
            // Returns with the PUBACK's arrival: the deadline only bounds a broker that is gone.
            if airloc_mosquitto_loop(client, Int32(left.seconds * 1000) + 1, 1) != MOSQ_ERR_SUCCESS.rawValue { break }
        }
        if state.withLock({ $0.connected }), airloc_mosquitto_disconnect(client) == MOSQ_ERR_SUCCESS.rawValue {
            // Writes the DISCONNECT; the library then closes the socket and the loop says so.
            for _ in 0..<5 where airloc_mosquitto_loop(client, 1000, 1) == MOSQ_ERR_SUCCESS.rawValue {}
        }
        state.withLock { $0.connected = false }
        handle.withLock { handle in
            handle = nil
            airloc_mosquitto_destroy(client)
        }
        post.yield(.disconnected(nil))
        post.finish()
    }

    // MARK: callbacks, on the network thread

    private func connectAnswered(_ code: Int32) {
        let event: MQTTEvent = state.withLock { state in
            if code == 0 {
                state.connected = true
                state.freshlyConnected = true
                state.generation += 1
                return .connected(generation: state.generation)
            }
            state.connected = false
            state.rejected = true
            // 4: bad user name or password, 5: not authorised — retrying cannot help.
            let credentials = code == 4 || code == 5
            if credentials { state.refusedForGood = true }
            return .failed(
                .refused(reason: String(cString: airloc_mosquitto_connack_string(code)), credentials: credentials))
        }
        post.yield(event)
    }

    /// The event is the loop's to post (``failed(_:errorNumber:)``, ``leave(_:)``, ``close(_:)``):
    /// it knows why the connection ended.
    private func disconnected(_ code: Int32) {
        state.withLock { state in
            if state.connected && !state.stopping && !state.paused && code != 0 { state.dropped = true }
            state.connected = false
        }
    }

    private func acknowledged(_ mid: Int32) {
        state.withLock { state in if state.farewell == mid { state.farewellAcknowledged = true } }
        post.yield(.acknowledged(mid))
    }
}
