import Foundation
import TestSupport
import Testing

/// The collector's own `/metrics` (`[collect] metrics`), against a real mosquitto, a real
/// PostgreSQL and a real Prometheus: `promtool check metrics` finds nothing to say, and the
/// stored, refused and acknowledged counts Prometheus reads back are the rows PostgreSQL
/// holds and the messages that were refused.
@Suite(.enabled(if: ExternalTool.available("mosquitto_pub", "mosquitto_sub", "psql", "prometheus", "promtool", "curl")))
struct CollectorMetricsEndToEndTests {
    typealias Input = CollectorInputEndToEndTests

    static func get(_ url: String, openMetrics: Bool = false) async throws -> String {
        var arguments = ["curl", "-sS", "--max-time", "60"]
        if openMetrics { arguments += ["-H", "Accept: application/openmetrics-text; version=1.0.0"] }
        let result = try await ChildProcess.run("/usr/bin/env", arguments + [url], environment: [:])
        guard result.status == 0 else { throw FixtureError("curl \(url): \(result)") }
        return result.stdout
    }

    @Test func prometheusReadsWhatPostgreSQLHolds() async throws {
        let broker = try await MosquittoBroker.start()
        let database = try await PostgresServer.start()
        let collector = try Input.Collector(
            broker: broker, database: database, config: "[collect]\nmetrics = 127.0.0.1:0\n")
        defer { collector.state.remove() }
        let running = try collector.start()
        try await Poll.until("the collector subscribed") {
            running.errors.contains("subscribed to") || !running.isRunning
        }
        let said = try #require(
            running.errors.split(separator: "\n").first { $0.contains("metrics on http://127.0.0.1:") },
            "\(running.errors)")
        let url = String(said[said.range(of: "http://")!.lowerBound...])
        let target = url.replacingOccurrences(of: "http://", with: "").replacingOccurrences(of: "/metrics", with: "")

        for id in 1...3 { try await Input.publish(broker, "airloc/pi/history", Input.track(id)) }
        try await Input.publish(broker, "airloc/pi/history", "not json at all")
        try await Input.publish(
            broker, "airloc/pi/history", Input.track(4).replacingOccurrences(of: "log/1", with: "log/7"))
        try await Poll.until("three rows stored") { try await Input.storedTrack(database).count == 3 }

        // The counts follow the commit (the rows are visible a moment before they are counted),
        // and the acknowledgement follows the counts: waited for, not raced.
        try await Poll.until("the stored rows and an acknowledgement counted") {
            let text = try await Self.get(url)
            return text.contains("airloc_collector_rows_stored_total{kind=\"track\"} 3\n")
                && !text.contains("airloc_collector_acks_total 0\n")
        }
        let text = try await Self.get(url)
        let promtool = try await ChildProcess.run(
            "/usr/bin/env", ["promtool", "check", "metrics"], environment: ProcessInfo.processInfo.environment,
            stdin: text)
        #expect(promtool.status == 0 && promtool.stdout.isEmpty && promtool.stderr.isEmpty, "\(promtool)\n\(text)")
        let open = try await Self.get(url, openMetrics: true)
        #expect(open.hasSuffix("# EOF\n") && open.contains("# TYPE airloc_collector_rows_stored counter"), "\(open)")
        #expect(open.contains("airloc_collector_lag_seconds_bucket{le=\"+Inf\"} 3"), "\(open)")

        let prometheus = try await PrometheusServer.start(targets: [target])
        try await Poll.until("prometheus's scrape of the stored rows") {
            let stored = try await prometheus.samples("airloc_collector_rows_stored_total{kind=\"track\"}")
            let down = try await prometheus.samples("up == 0")
            return stored.first?.value == 3 || !down.isEmpty
        }
        func value(_ query: String) async throws -> Double? { try await prometheus.samples(query).first?.value }
        let rows = Double(
            try await database.query("SELECT count(*) FROM track").trimmingCharacters(in: .whitespacesAndNewlines))
        let up = try await value("up")
        #expect(up == 1, "\(prometheus.log)")
        #expect(try await value("airloc_collector_rows_stored_total{kind=\"track\"}") == rows)
        #expect(try await value("airloc_collector_rows_stored_total{kind=\"sensor\"}") == 0)
        #expect(try await value("airloc_collector_rows_refused_total{reason=\"not_json\"}") == 1)
        #expect(try await value("airloc_collector_rows_refused_total{reason=\"unknown_schema\"}") == 1)
        #expect(try await value("airloc_collector_devices") == 1)
        #expect(try await value("airloc_collector_database_up") == 1)
        #expect(try await value("airloc_collector_broker_up") == 1)
        #expect(try await value("airloc_collector_lag_seconds_count") == rows)
        #expect(try await value("airloc_collector_batch_seconds_count") ?? 0 >= 1)
        #expect(try await value("airloc_collector_acks_total") ?? 0 >= 1, "the device was acknowledged")
        #expect(try await Self.get(url.replacingOccurrences(of: "/metrics", with: "/nope")).contains("not found"))
        try await prometheus.stop()
        running.signal(SIGTERM)
        #expect(try await running.wait().status == 0, "\(running.errors)")
        try await broker.stop()
        try await database.stop()
    }

    /// The scrape configuration and the alert rules docs/collector.md gives are what
    /// Prometheus accepts: `promtool check config` reads the one and the rules it names; the
    /// rules are the shipped file's, and its unit test (`promtool test rules`) passes: each
    /// fault fires its alert within a minute.
    @Test func theDocumentedScrapeConfigurationAndAlertsAreValidAndFire() async throws {
        let document = try String(contentsOf: PackagePaths.file("docs/collector.md"), encoding: .utf8)
        let blocks = document.components(separatedBy: "```yaml\n").dropFirst().compactMap {
            $0.components(separatedBy: "```").first
        }
        let config = try #require(blocks.first { $0.hasPrefix("# prometheus.yml") })
        let rules = try #require(blocks.first { $0.hasPrefix("# airloc-collector.rules.yml") })
        let shipped = try String(
            contentsOf: PackagePaths.file("docs/examples/airloc-collector.rules.yml"), encoding: .utf8)
        #expect(rules == shipped, "docs/collector.md gives the shipped rules")
        let ruleTest = try String(
            contentsOf: PackagePaths.file("docs/examples/airloc-collector.rules.test.yml"), encoding: .utf8)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try config.write(to: directory.file("prometheus.yml"), atomically: true, encoding: .utf8)
        try rules.write(to: directory.file("airloc-collector.rules.yml"), atomically: true, encoding: .utf8)
        try ruleTest.write(to: directory.file("airloc-collector.rules.test.yml"), atomically: true, encoding: .utf8)
        let checked = try await ChildProcess.run(
            "/usr/bin/env", ["promtool", "check", "config", directory.file("prometheus.yml").path],
            environment: ProcessInfo.processInfo.environment)
        #expect(checked.status == 0, "\(checked)")
        #expect(checked.stdout.contains("SUCCESS: 8 rules found"), "\(checked)")
        let tested = try await ChildProcess.run(
            "/usr/bin/env", ["promtool", "test", "rules", directory.file("airloc-collector.rules.test.yml").path],
            environment: ProcessInfo.processInfo.environment)
        #expect(tested.status == 0 && tested.stdout.contains("SUCCESS"), "\(tested)")
    }
}
