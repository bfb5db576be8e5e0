import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The local HTTP double (scripts/http-double.py) for one test: started on a free port
/// chosen by the kernel, with optional faults, stopped by `stop()`.
///
/// Contract: `start` either returns a double that answers on `baseURL` or throws —
/// a test never runs against a double that did not come up.
public final class HTTPDouble: @unchecked Sendable {
    public let port: Int
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    private let process: ChildProcess

    private init(process: ChildProcess, port: Int) {
        self.process = process
        self.port = port
    }

    /// Starts the double; each fault is a JSON object (see the script's help).
    public static func start(faults: [String] = []) async throws -> HTTPDouble {
        try await offPool {
            try startBlocking(script: "scripts/http-double.py", arguments: faults.flatMap { ["--fault", $0] })
        }
    }

    /// The upload servers' double (scripts/upload-double.py), with its arguments (the
    /// accounts it knows, faults).
    public static func startUploadServers(_ arguments: [String] = []) async throws -> HTTPDouble {
        try await offPool { try startBlocking(script: "scripts/upload-double.py", arguments: arguments) }
    }

    static func startBlocking(script: String, arguments: [String]) throws -> HTTPDouble {
        guard let python = ExternalTool.path(of: "python3") else {
            throw FixtureError("python3 is needed for the HTTP double but is not installed")
        }
        let process = try ChildProcess(
            python, [PackagePaths.file(script).path] + arguments, environment: ProcessInfo.processInfo.environment)
        // The first line is "PORT <n>", awaited with a deadline that only a hung
        // interpreter reaches (a dozen doubles starting at once beside a busy CPU took
        // over 10 s on a 2-core machine).
        try process.waitForOutputBlocking("its PORT line", timeout: 120) { $0.contains("\n") }
        let text = process.output.prefix { $0 != "\n" }
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.stop()
            throw FixtureError("the HTTP double did not start (said: '\(text)')")
        }
        return HTTPDouble(process: process, port: port)
    }

    /// Adds a fault while running.
    public func addFault(_ json: String) throws {
        _ = try request(method: "POST", path: "/__fault", body: json)
    }

    /// Every request the double received: (path, query).
    public func requests() throws -> [(path: String, query: String)] {
        let data = try request(method: "GET", path: "/__requests", body: nil)
        let list = (try JSONSerialization.jsonObject(with: data) as? [[String: String]]) ?? []
        return list.map { ($0["path"] ?? "", $0["query"] ?? "") }
    }

    /// The body of a GET of `path` (the upload double's `/__received`).
    public func get(_ path: String) throws -> Data { try request(method: "GET", path: path, body: nil) }

    /// Removes every fault (the server comes back).
    public func clearFaults() throws { _ = try request(method: "DELETE", path: "/__fault", body: nil) }

    private func request(method: String, path: String, body: String?) throws -> Data {
        // A raw HTTP/1.0 exchange over a socket keeps test support free of URLSession.
        let socket = try LoopbackSocket()
        defer { socket.close() }
        let fd = socket.fd
        guard socket.connect(port: port) else { throw FixtureError("cannot connect to the HTTP double") }
        let payload = body ?? ""
        let message =
            "\(method) \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: \(payload.utf8.count)\r\n\r\n\(payload)"
        _ = message.withCString { send(fd, $0, strlen($0), 0) }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            response.append(contentsOf: buffer[0..<count])
        }
        guard let split = response.range(of: Data("\r\n\r\n".utf8)) else { return Data() }
        return response.subdata(in: split.upperBound..<response.count)
    }

    /// Kills the double without waiting (never block a cooperative thread).
    public func stop() { process.stop() }

    deinit { stop() }
}
