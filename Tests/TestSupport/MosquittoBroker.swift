import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real `mosquitto` broker of a test's own, on a port of its own, with persistence in
/// a temporary directory — so that a restart keeps retained messages and persistent
/// sessions, as a deployed broker does.
///
/// Contract: ``start(port:tls:)`` returns when the broker accepts connections (or
/// throws after 120 s); ``stop()`` ends it as a service stop does (SIGTERM: it writes its
/// persistence) and waits for it. The broker is started with no signal blocked: a child
/// started from a test thread inherits that thread's mask, and a blocked SIGTERM made
/// every stop a 60 s wait. The same port can be started again. Under `CI=true` a
/// missing mosquitto is a failure, never a skip.
public final class MosquittoBroker: @unchecked Sendable {
    public let port: Int
    public let directory: TemporaryDirectory
    private var process: ChildProcess?
    /// What mosquitto said on stderr (its log) since its last start.
    public var log: String { process?.errors ?? "" }

    public var url: String { "mqtt://127.0.0.1:\(port)" }
    /// The TLS listener's port, when the broker was prepared with one.
    public private(set) var tlsPort: Int?
    /// The certificates of the TLS listener (its CA, and a CA that did not sign it).
    public private(set) var certificates: TestCertificates?

    private init(port: Int, directory: TemporaryDirectory) {
        self.port = port
        self.directory = directory
    }

    /// A broker configuration for `port` (not started yet); with `tls`, a second listener
    /// speaks TLS only, with a certificate for 127.0.0.1 from a CA of the test's own; with
    /// `requireCertificate`, it accepts only clients with a certificate from that CA.
    public static func prepare(
        port: Int? = nil, tls: Bool = false, requireCertificate: Bool = false
    ) async throws -> MosquittoBroker {
        let broker = MosquittoBroker(port: try port ?? GPSFake.freePort(), directory: try TemporaryDirectory())
        // `user root`: started as root (CI), mosquitto would otherwise drop to the
        // `mosquitto` user, which can neither write the persistence nor read the key in
        // the test's directory — a restart would silently forget every session.
        // Started as anyone else, the line is ignored.
        var config = """
            user root
            per_listener_settings false
            allow_anonymous true
            persistence true
            persistence_location \(broker.directory.url.path)/
            autosave_interval 1
            max_queued_messages 100000
            listener \(broker.port) 127.0.0.1

            """
        if tls {
            let certificates = try await TestCertificates.make(in: broker.directory.url)
            let tlsPort = try GPSFake.freePort()
            broker.tlsPort = tlsPort
            broker.certificates = certificates
            config += """
                listener \(tlsPort) 127.0.0.1
                cafile \(certificates.authority)
                certfile \(certificates.serverCertificate)
                keyfile \(certificates.serverKey)
                require_certificate \(requireCertificate)

                """
        }
        try config.write(to: broker.directory.file("mosquitto.conf"), atomically: true, encoding: .utf8)
        return broker
    }

    public static func start(
        port: Int? = nil, tls: Bool = false, requireCertificate: Bool = false
    ) async throws -> MosquittoBroker {
        // A port found free may be taken before mosquitto binds it (another test's child
        // binding one of its own): a broker on a port of its choosing tries another.
        for attempt in 1...3 {
            let broker = try await prepare(port: port, tls: tls, requireCertificate: requireCertificate)
            do {
                try await broker.start()
                return broker
            } catch let error as FixtureError
                where port == nil && attempt < 3 && error.description.contains("Address already in use")
            {
                continue
            }
        }
        throw FixtureError("mosquitto could not start")
    }

    public func start() async throws {
        let binary = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let binary else {
            throw FixtureError("mosquitto is needed but not installed (make test installs it)")
        }
        // ChildProcess starts it with no signal blocked, so SIGTERM stops it.
        let child = try ChildProcess(
            binary, ["-c", directory.file("mosquitto.conf").path], environment: ProcessInfo.processInfo.environment)
        process = child
        let port = self.port
        try await Poll.until("mosquitto on port \(port)") {
            guard child.isRunning, let socket = try? LoopbackSocket() else { return !child.isRunning }
            defer { socket.close() }
            return socket.connect(port: port)
        }
        guard child.isRunning else { throw FixtureError("mosquitto exited: \(child.errors)") }
    }

    /// Makes the broker read its password and ACL files again (SIGHUP), as
    /// `systemctl reload mosquitto` does.
    public func reload() { process?.signal(SIGHUP) }

    /// Stops the broker as a service stop does (SIGTERM: it writes its persistence) and
    /// waits for its exit; a broker that does not exit in time is a failure.
    public func stop() async throws {
        guard let process else { return }
        self.process = nil
        process.signal(SIGTERM)
        _ = try await process.wait(timeout: 60)
    }

    deinit {
        process?.stop()
        directory.remove()
    }
}

/// A `mosquitto_sub` client with a persistent session (QoS 1, clean session off) that
/// collects what it receives, one "topic payload" line each.
///
/// Contract: ``start(broker:id:topics:)`` returns once the broker has its subscription,
/// proven by an event, not by time: before subscribing, it publishes a retained probe on a
/// topic of its own, which the broker delivers only to a subscription it has made. So
/// every message published after `start` returns reaches this subscriber (or, after
/// ``stop()``, its persistent session). Probe messages are not in ``messages``.
public final class MQTTSubscriber: @unchecked Sendable {
    let process: ChildProcess
    private static let probeTopic = "airloc-test/subscribed"

    private init(process: ChildProcess) { self.process = process }

    public static func start(broker: MosquittoBroker, id: String, topics: [String]) async throws -> MQTTSubscriber {
        guard let subscribe = ExternalTool.path(of: "mosquitto_sub"),
            let publish = ExternalTool.path(of: "mosquitto_pub")
        else {
            throw FixtureError("mosquitto_sub and mosquitto_pub (mosquitto-clients) are needed but not installed")
        }
        let probe = "\(probeTopic)/\(id)"
        let published = try await ChildProcess.run(
            publish, ["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-r", "-t", probe, "-m", "here"],
            environment: ProcessInfo.processInfo.environment)
        guard published.status == 0 else { throw FixtureError("mosquitto_pub of the probe failed: \(published)") }
        let process = try ChildProcess(
            subscribe,
            ["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-c", "-i", id, "-v"]
                + (topics + [probe]).flatMap { ["-t", $0] },
            environment: ProcessInfo.processInfo.environment)
        let subscriber = MQTTSubscriber(process: process)
        try await process.waitForOutput("the retained probe on \(probe)") { $0.contains("\(probe) here\n") }
        return subscriber
    }

    /// (topic, payload) pairs received so far.
    public var messages: [(topic: String, payload: String)] {
        process.output.split(separator: "\n").map { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            return (String(parts.first ?? ""), parts.count > 1 ? String(parts[1]) : "")
        }.filter { !$0.topic.hasPrefix(Self.probeTopic + "/") }
    }

    public func stop() async throws {
        process.stop()
        _ = try await process.wait(timeout: 30)
    }

    // A test that throws before stop() must not leave its subscriber running.
    deinit { process.stop() }
}

/// A CA, a server certificate it signed for 127.0.0.1, a client certificate it signed
/// (a device's), and another CA that signed nothing here (the "wrong CA" a misconfigured
/// device trusts): made with `openssl`.
public struct TestCertificates: Sendable {
    public let authority: String
    public let otherAuthority: String
    public let serverCertificate: String
    public let serverKey: String
    public let clientCertificate: String
    public let clientKey: String

    public static func make(in directory: URL) async throws -> TestCertificates {
        guard let openssl = ExternalTool.path(of: "openssl") else {
            throw FixtureError("openssl is needed but not installed (make test installs it)")
        }
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let steps: [[String]] = [
            ["req", "-x509"] + key + [
                "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "30", "-subj", "/CN=airloc test CA",
            ],
            ["req", "-x509"] + key + [
                "-keyout", path("other.key"), "-out", path("other.pem"), "-days", "30", "-subj", "/CN=another CA",
            ],
            ["req"] + key + ["-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=127.0.0.1"],
            [
                "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                "-CAcreateserial", "-out", path("server.pem"), "-days", "30", "-extfile", path("san.cnf"),
            ],
            ["req"] + key + ["-keyout", path("client.key"), "-out", path("client.csr"), "-subj", "/CN=device"],
            [
                "x509", "-req", "-in", path("client.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                "-CAcreateserial", "-out", path("client.pem"), "-days", "30",
            ],
        ]
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: path("san.cnf"), atomically: true, encoding: .utf8)
        for step in steps {
            let result = try await ChildProcess.run(openssl, step, environment: ProcessInfo.processInfo.environment)
            guard result.status == 0 else { throw FixtureError("openssl \(step.joined(separator: " ")): \(result)") }
        }
        return TestCertificates(
            authority: path("ca.pem"), otherAuthority: path("other.pem"), serverCertificate: path("server.pem"),
            serverKey: path("server.key"), clientCertificate: path("client.pem"), clientKey: path("client.key"))
    }
}
