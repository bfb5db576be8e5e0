import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real `mosquitto` broker of a test's own, on a port of its own, with persistence in
/// a temporary directory — so that a restart keeps retained messages and persistent
/// sessions, as a deployed broker does.
///
/// Contract: ``start(port:)`` returns when the broker accepts connections (or throws
/// after 120 s); ``stop()`` kills it and waits for it — SIGKILL, as a power cut would:
/// its persistence is saved every second (`autosave_interval 1`), and a child started
/// from a test thread may have SIGTERM blocked (the mask is inherited) and ignore it.
/// The same port can be started again. Under `CI=true` a missing
/// mosquitto is a failure, never a skip.
public final class MosquittoBroker: @unchecked Sendable {
    public let port: Int
    public let directory: TemporaryDirectory
    private var process: RunningProcess?

    public var url: String { "mqtt://127.0.0.1:\(port)" }

    private init(port: Int, directory: TemporaryDirectory) {
        self.port = port
        self.directory = directory
    }

    /// A broker configuration for `port` (not started yet).
    public static func prepare(port: Int? = nil) throws -> MosquittoBroker {
        let broker = MosquittoBroker(port: try port ?? GPSFake.freePort(), directory: try TemporaryDirectory())
        let config = """
            listener \(broker.port) 127.0.0.1
            allow_anonymous true
            persistence true
            persistence_location \(broker.directory.url.path)/
            autosave_interval 1
            max_queued_messages 100000
            """
        try config.write(to: broker.directory.file("mosquitto.conf"), atomically: true, encoding: .utf8)
        return broker
    }

    public static func start(port: Int? = nil) async throws -> MosquittoBroker {
        let broker = try prepare(port: port)
        try await broker.start()
        return broker
    }

    public func start() async throws {
        let binary = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let binary else {
            throw FixtureError("mosquitto is needed but not installed (make test installs it)")
        }
        let child = try RunningProcess(
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

    public func stop() async {
        guard let process else { return }
        self.process = nil
        // Persistence is written every second: let the last second's changes land.
        try? await Task.sleep(for: .milliseconds(1500))
        process.signal(SIGKILL)
        _ = try? await process.wait(timeout: 60)
    }

    deinit {
        process?.signal(SIGKILL)
        directory.remove()
    }
}

/// A `mosquitto_sub` client with a persistent session (QoS 1, clean session off) that
/// collects what it receives, one "topic payload" line each.
public final class MQTTSubscriber: @unchecked Sendable {
    let process: RunningProcess

    public init(broker: MosquittoBroker, id: String, topics: [String]) throws {
        guard let binary = ExternalTool.path(of: "mosquitto_sub") else {
            throw FixtureError("mosquitto_sub (mosquitto-clients) is needed but not installed")
        }
        process = try RunningProcess(
            binary,
            ["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-c", "-i", id, "-v"]
                + topics.flatMap { ["-t", $0] },
            environment: ProcessInfo.processInfo.environment)
    }

    /// (topic, payload) pairs received so far.
    public var messages: [(topic: String, payload: String)] {
        process.output.split(separator: "\n").map { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            return (String(parts.first ?? ""), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    public func stop() async {
        process.signal(SIGKILL)
        _ = try? await process.wait(timeout: 30)
    }
}
