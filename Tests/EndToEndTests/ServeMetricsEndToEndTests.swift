import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `/metrics` read by a real Prometheus: it scrapes `airloc serve` (through the password,
/// as docs/serve.md's scrape configuration does, and in OpenMetrics, which Prometheus asks
/// for first), and what its query API returns is what the endpoint said and what the
/// logbook holds.
@Suite(.enabled(if: ExternalTool.available("python3", "prometheus", "curl")))
struct ServeMetricsEndToEndTests {
    /// The sample lines of a text exposition, by series (`name{labels}`), without the
    /// comments and the OpenMetrics end.
    static func series(_ exposition: String) -> [String: Double] {
        var found: [String: Double] = [:]
        for line in exposition.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            found[String(line[..<space])] = value
        }
        return found
    }

    /// `name{a="b",c="d"}` for a Prometheus sample, labels sorted, without the ones
    /// Prometheus adds (`job`, `instance`).
    static func key(_ sample: PrometheusServer.Sample) -> String {
        var labels = sample.labels
        let name = labels.removeValue(forKey: "__name__") ?? ""
        labels["job"] = nil
        labels["instance"] = nil
        guard !labels.isEmpty else { return name }
        return name + "{" + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ",")
            + "}"
    }

    @Test func aRealPrometheusScrapesWhatTheLogbookHolds() async throws {
        let password = "scrape me"
        let secrets = try TemporaryDirectory()
        defer { secrets.remove() }
        let secret = secrets.file("password")
        try password.write(to: secret, atomically: true, encoding: .utf8)
        chmod(secret.path, 0o600)
        let (home, server, port) = try await ServeEndToEndTests.serve(
            // A day that ended minutes ago, so the model's hour still counts and is scraped too.
            "[serve]\nlisten = 127.0.0.1:0\npassword-file = \(secret.path)\n",
            start: Date(timeIntervalSinceNow: -7_500))
        defer { home.remove() }
        let prometheus = try await PrometheusServer.start(targets: ["127.0.0.1:\(port)"], password: password)
        try await Poll.until("prometheus's first scrape of airloc serve") {
            let built = try await prometheus.samples("airloc_build_info")
            let down = try await prometheus.samples("up == 0")
            return !built.isEmpty || !down.isEmpty
        }
        let up = try await prometheus.samples("up")
        #expect(up.map(\.value) == [1], "the target is up: \(up)\n\(prometheus.log)")

        let fetched = try await ChildProcess.run(
            "/usr/bin/env",
            ["curl", "-sS", "--max-time", "60", "-u", "airloc:\(password)", "http://127.0.0.1:\(port)/metrics"],
            environment: [:])
        let exposed = Self.series(fetched.stdout)
        #expect(exposed["airloc_logbook_rows{kind=\"track\"}"] == 660, "\(fetched.stdout)")
        var scraped: [String: Double] = [:]
        for sample in try await prometheus.samples("{__name__=~\"airloc_.+\"}") {
            scraped[Self.key(sample)] = sample.value
        }
        // Every series the endpoint has, Prometheus has, with the same value (ages go on
        // counting between the two reads, so they only have to be there).
        #expect(Set(scraped.keys) == Set(exposed.keys), "scraped \(scraped)\nexposed \(exposed)")
        for (series, value) in exposed where !series.contains("_age_seconds") {
            #expect(scraped[series] == value, "\(series): Prometheus has \(scraped[series] ?? .nan), /metrics \(value)")
        }
        for name in [
            "airloc_aqi{scale=\"us\",source=\"model\"}", "airloc_headline_aqi{scale=\"us\"}",
            "airloc_pm2_5{source=\"model\"}", "airloc_fix_mode", "airloc_latitude_degrees",
        ] {
            #expect(scraped[name] != nil, "\(name) is scraped: \(scraped)")
        }
        #expect(scraped.keys.contains { $0.hasPrefix("airloc_build_info{version=") })
        try await prometheus.stop()
        _ = try await server.terminate()
    }
}
