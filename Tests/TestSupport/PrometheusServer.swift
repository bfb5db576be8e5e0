import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real Prometheus (Debian's `prometheus`) of a test's own: a free port, a temporary
/// store, one job scraping the given targets every second.
///
/// Contract: ``start(targets:path:)`` returns once Prometheus says it is ready (or throws
/// after 120 s); ``samples(_:)`` asks its query API, as a dashboard would, and returns each
/// series' labels and value; ``stop()`` ends it. Under `CI=true` a missing prometheus is
/// a failure, never a skip (the suite using it is enabled by ``ExternalTool/available(_:)``).
public final class PrometheusServer: @unchecked Sendable {
    public let port: Int
    public let directory: TemporaryDirectory
    private let process: ChildProcess

    private init(port: Int, directory: TemporaryDirectory, process: ChildProcess) {
        (self.port, self.directory, self.process) = (port, directory, process)
    }

    /// What Prometheus said on stderr (its log).
    public var log: String { process.errors }

    /// Prometheus scraping `targets` (`127.0.0.1:PORT`) at `path` every second, with HTTP
    /// Basic (user `airloc`) when `password` is given.
    public static func start(targets: [String], path: String = "/metrics", password: String? = nil) async throws
        -> PrometheusServer
    {
        guard let binary = ExternalTool.path(of: "prometheus") else {
            throw FixtureError("prometheus is needed but not installed (make test installs it)")
        }
        let directory = try TemporaryDirectory()
        let port = try GPSFake.freePort()
        var config = """
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
            scrape_configs:
              - job_name: airloc
                metrics_path: \(path)
                static_configs:
                  - targets: [\(targets.map { "\"\($0)\"" }.joined(separator: ", "))]

            """
        if let password {
            let file = directory.file("password")
            try password.write(to: file, atomically: true, encoding: .utf8)
            config += "    basic_auth: { username: airloc, password_file: \(file.path) }\n"
        }
        try config.write(to: directory.file("prometheus.yml"), atomically: true, encoding: .utf8)
        let process = try ChildProcess(
            binary,
            [
                "--config.file=\(directory.file("prometheus.yml").path)",
                "--storage.tsdb.path=\(directory.file("data").path)",
                "--web.listen-address=127.0.0.1:\(port)",
            ], environment: ProcessInfo.processInfo.environment)
        let server = PrometheusServer(port: port, directory: directory, process: process)
        try await Poll.until("prometheus to be ready on port \(port)") {
            guard process.isRunning else { return true }
            return (try? await server.get("/-/ready").status) == 200
        }
        guard process.isRunning else { throw FixtureError("prometheus exited: \(process.errors)") }
        return server
    }

    /// GET `path` on Prometheus itself: its status and body.
    func get(_ path: String) async throws -> (status: Int, body: String) {
        let curl = try await ChildProcess.run(
            "/usr/bin/env",
            ["curl", "-sS", "--max-time", "30", "-o", "-", "-w", "\n%{http_code}", "http://127.0.0.1:\(port)\(path)"],
            environment: [:])
        let lines = curl.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// One series of an instant query: its labels and its value.
    public struct Sample: Sendable, CustomStringConvertible {
        public var labels: [String: String]
        public var value: Double
        public var description: String { "\(labels) \(value)" }
    }

    /// The instant query `promql`'s series, as the query API returns them.
    public func samples(_ promql: String) async throws -> [Sample] {
        let query = promql.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? promql
        let answer = try await get("/api/v1/query?query=\(query)")
        guard answer.status == 200,
            let document = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any],
            let data = document["data"] as? [String: Any], let result = data["result"] as? [[String: Any]]
        else { throw FixtureError("prometheus did not answer \(promql): \(answer)") }
        return result.compactMap { series in
            guard let labels = series["metric"] as? [String: String], let value = series["value"] as? [Any],
                value.count == 2, let text = value[1] as? String, let number = Double(text)
            else { return nil }
            return Sample(labels: labels, value: number)
        }
    }

    public func stop() async throws {
        process.signal(SIGTERM)
        _ = try await process.wait(timeout: 60)
        directory.remove()
    }

    deinit { process.stop() }
}
