import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real gpsd fed by gpsfake from an NMEA log, for one test.
///
/// Facts it relies on (reference/gpsd.md): gpsfake ignores SIGTERM, so it runs in its own
/// process group and the whole group (gpsfake and its gpsd) is SIGKILLed;
/// every instance gets its own port and SHM key, and the SHM segment is removed.
public final class GPSFake: @unchecked Sendable {
    public let port: Int
    private let process: ChildProcess
    private let shmKey: Int
    /// Whether gpsfake was started `gated`: its stdin then lets one sentence through a line.
    private let gated: Bool

    /// The log being played.
    private let log: URL

    private init(process: ChildProcess, port: Int, shmKey: Int, gated: Bool, log: URL) {
        self.log = log
        self.process = process
        self.port = port
        self.shmKey = shmKey
        self.gated = gated
    }

    /// Starts gpsfake with `log` on a free port and waits until gpsd accepts connections.
    /// `loop` replays the log for ever (the default); `cycle` is the delay per sentence.
    /// `port` reuses a port (to restart gpsd where a client expects it). `gated` holds
    /// every sentence back until ``releaseWholeLog()`` (gpsfake's single-step mode, fed
    /// from a pipe): a test lets the log flow once its client watches, instead of hoping
    /// the client is there in time.
    public static func start(
        log: URL, loop: Bool = true, cycle: Double = 0.1, port fixedPort: Int? = nil, gated: Bool = false
    ) async throws -> GPSFake {
        try await offPool { try startBlocking(log: log, loop: loop, cycle: cycle, port: fixedPort, gated: gated) }
    }

    /// Lets the whole of a `gated` log through (at the log's cycle): one line per byte of
    /// the file, so every sentence, binary logs too; gpsfake ends a played-once log on its
    /// own and the rest stays unread.
    public func releaseWholeLog() {
        guard gated else { return }
        // gpsfake exits at the end of a played-once log, with most of the release unread:
        // the write then fails with EPIPE (ChildProcess ignores SIGPIPE).
        let size = (try? FileManager.default.attributesOfItem(atPath: log.path)[.size] as? Int) ?? nil
        let lines = Data(repeating: UInt8(ascii: "\n"), count: size ?? 1_000_000)
        // A pipe holds 64 KiB: a longer release is written by a thread of its own.
        let process = self.process
        Thread.detachNewThread { process.write(lines) }
    }

    static func startBlocking(log: URL, loop: Bool, cycle: Double, port fixedPort: Int?, gated: Bool) throws
        -> GPSFake
    {
        guard let gpsfake = ExternalTool.path(of: "gpsfake") else {
            throw FixtureError("gpsfake (Debian package gpsd-clients) is needed but not installed")
        }
        var lastError = "gpsd did not start"
        for _ in 0..<3 {
            let port = try fixedPort ?? freePort()
            // gpsfake gives its gpsd the SHM key 0x4770 followed by the port in hex (it
            // overrides GPSD_SHM_KEY): stop() removes that segment.
            let shmKey = 0x4770_0000 + port
            // The child leads a process group of its own, so killing it reaches gpsfake
            // and its gpsd together.
            // -n: gpsd reads the log with no client watching, like a receiver that is
            // always on (without it gpsfake times out waiting). A log played once may
            // therefore start before a client watches: tests that need every sentence
            // loop the log and watch for a whole cycle.
            var arguments = ["-q", "-n", "-c", String(cycle), "-P", String(port)]
            // A log played once: gpsd stays up 60 s after its end (-W) and stop() ends it.
            // With 3 s, a busy machine that got a log's last part in a burst saw gpsd go
            // away before a 9 s "lost" timer could run: a test whose outcome depended on
            // the machine's speed.
            if !loop { arguments += ["-1", "-W", "60"] }
            if gated { arguments.append("-i") }
            // Gated, gpsfake reads a line before each sentence; the pipe stays open until
            // stop() (at end of input it would fail instead of waiting).
            let process = try ChildProcess(
                gpsfake, arguments + [log.path], environment: ProcessInfo.processInfo.environment,
                input: gated ? .pipe : .none, captureOutput: false)
            let fake = GPSFake(process: process, port: port, shmKey: shmKey, gated: gated, log: log)
            let deadline = Date().addingTimeInterval(120)
            var registered = Date()
            while Date() < deadline && process.isRunning {
                // gpsfake tells gpsd about its pty once, as soon as gpsd's control socket
                // file exists, and drops the request silently when gpsd is not listening
                // on it yet (gpsd binds, then listens: a busy machine widens that gap).
                // gpsd then runs for ever with no device. Two seconds without a device:
                // tell gpsd ourselves (a second "+device" for one it has is harmless).
                if Date().timeIntervalSince(registered) > 2 {
                    registerDevice(gpsfake: process.pid)
                    registered = Date()
                }
                // gpsd is up and already has gpsfake's pty as its device (canConnect asks
                // it): nothing left to wait for.
                if canConnect(port: port) { return fake }
                usleep(50_000)
            }
            lastError =
                process.isRunning
                ? "gpsd on port \(port) had no device from gpsfake within 120 s" : "gpsfake exited early"
            fake.stop()
        }
        throw FixtureError(lastError)
    }

    /// Sends gpsd, through gpsfake's control socket, the "+/dev/pts/N" gpsfake meant to
    /// send: the pty is the one gpsfake holds open.
    static func registerDevice(gpsfake pid: Int32) {
        let directory = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        let control = "\(directory)/gpsfake-\(pid).sock"
        // Its pty's slave side: the second one it opened. gpsfake first opens a pty only
        // to see that ptys work, and keeps it; until the second exists there is nothing
        // to register. stdin/stdout/stderr (maybe a terminal) are not it.
        let descriptors = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? [])
            .compactMap { Int($0) }.filter { $0 > 2 }.sorted()
        let ptys = descriptors.compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")
        }.filter { $0.hasPrefix("/dev/pts/") }
        guard ptys.count >= 2, let pty = ptys.last, FileManager.default.fileExists(atPath: control) else { return }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in control.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { return }
        let request = Array("+\(pty)\r\n\0".utf8)
        guard write(fd, request, request.count) == request.count else { return }
        var answer = [UInt8](repeating: 0, count: 12)
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = read(fd, &answer, answer.count)
    }

    /// Kills gpsfake and its gpsd, and removes the SHM segment.
    public func stop() {
        // No wait: stop() runs in tests' `defer` on Swift's two cooperative threads.
        // SIGKILL cannot be refused, and the child's own thread reaps it.
        process.stop()
        // gpsd's SHM segment outlives it (IPC_RMID also works while it is still attached).
        let id = shmget(key_t(shmKey), 0, 0)
        if id >= 0 { shmctl(id, IPC_RMID, nil) }
    }

    deinit { stop() }

    /// A TCP port nobody listens on right now, chosen below the kernel's ephemeral range
    /// (32768-60999): a port the kernel hands out for "port 0" — as the HTTP doubles of
    /// tests running in parallel ask for — could be taken between this check and gpsd's
    /// bind, and the test would then talk to a web server instead of gpsd.
    public static func freePort() throws -> Int {
        for _ in 0..<100 {
            let port = Int.random(in: 20_000..<32_000)
            // Never the same port twice in one test run: two fixtures checking one port
            // at the same moment would both find it free.
            guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
            let socket = try LoopbackSocket()
            defer { socket.close() }
            if socket.bind(port: port) { return port }
        }
        throw FixtureError("cannot find a free port in 20000-31999")
    }

    private static let handedOut = LockedSet()

    /// True when what listens on `port` is gpsd (it greets every client with its
    /// VERSION object) and gpsfake has already given it its device: under load, gpsd can
    /// be up for seconds before gpsfake registers the pty, and a test that starts then
    /// waits for data that will not come.
    static func canConnect(port: Int) -> Bool {
        guard let socket = try? LoopbackSocket() else { return false }
        defer { socket.close() }
        let fd = socket.fd
        socket.setReadTimeout(seconds: 1)
        guard socket.connect(port: port) else { return false }
        let query = Array("?DEVICES;\n".utf8)
        guard write(fd, query, query.count) == query.count else { return false }
        var received = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        // gpsd ends lines with "\r\n", one Character in Swift: test the last byte.
        while !received.contains("\"class\":\"DEVICES\"") || received.utf8.last != UInt8(ascii: "\n") {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return false }
            received += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        return received.contains("\"VERSION\"") && received.contains("\"path\":\"")
    }
}

/// Writes a synthetic NMEA log with scripts/nmea-track.py.
public enum SyntheticTrack {
    public static func write(kind: String, latitude: Double, longitude: Double, to url: URL) async throws {
        try await offPool { try writeBlocking([kind, String(latitude), String(longitude)], to: url) }
    }

    /// The script run with `arguments` (`["fix", "52.52", "13.405", "--now", "--shift", "3600"]`).
    public static func write(arguments: [String], to url: URL) async throws {
        try await offPool { try writeBlocking(arguments, to: url) }
    }

    /// 30 s at the first point, then 30 s at the second (the script's `move`).
    public static func writeJourney(
        from start: (latitude: Double, longitude: Double), to end: (latitude: Double, longitude: Double),
        to url: URL
    ) async throws {
        let points = [start.latitude, start.longitude, end.latitude, end.longitude].map { String($0) }
        try await offPool { try writeBlocking(["move"] + points, to: url) }
    }

    static func writeBlocking(_ arguments: [String], to url: URL) throws {
        let result = try ChildProcess.runBlocking(
            ExternalTool.path(of: "python3") ?? "/usr/bin/python3",
            [PackagePaths.file("scripts/nmea-track.py").path] + arguments,
            environment: ProcessInfo.processInfo.environment)
        guard result.status == 0 else { throw FixtureError("nmea-track.py failed: \(result.stderr)") }
        try Data(result.stdout.utf8).write(to: url)
    }
}

/// A set of ports behind a lock (tests run in parallel threads).
final class LockedSet: @unchecked Sendable {
    private var ports = Set<Int>()
    private let lock = NSLock()

    func withLock<T>(_ body: (inout Set<Int>) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&ports)
    }
}
