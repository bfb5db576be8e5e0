import Foundation
import Platform
import Settings
import Testing
import Web

@testable import Airloc

/// doctor's `[collect] metrics` check: nothing without it; the address free, served by a
/// running `airloc collect`, or taken by another program (a failure: the collector would
/// not start). The port is really bound by a socket of the test's own.
@Suite struct CollectMetricsCheckTests {
    typealias Answering = ServeCheckTests.Answering

    static func settings(port: Int?) -> Settings {
        var settings = Settings(directories: XDGDirectories(environment: ["HOME": "/nonexistent"]))
        if let port { (settings.collect.metricsHost, settings.collect.metricsPort) = ("127.0.0.1", port) }
        return settings
    }

    @Test func aTakenAddressIsTheCollectorsOnlyWhenItAnswersAsTheCollector() async throws {
        #expect(await HealthCheck.collectMetrics(Self.settings(port: nil)).isEmpty, "not set: nothing to check")
        let listener = try ServeCheckTests.Listener()
        let ours = Answering(200, "# TYPE airloc_collector_devices gauge\nairloc_collector_devices 3\n")
        let served = await HealthCheck.collectMetrics(Self.settings(port: listener.port), transport: ours)
        #expect(served.map(\.status) == [.ok] && served.first?.detail.contains("served by airloc collect") == true)
        #expect(ours.asked.map(\.absoluteString) == ["http://127.0.0.1:\(listener.port)/metrics"])
        let other = Answering(200, "hello")
        let taken = await HealthCheck.collectMetrics(Self.settings(port: listener.port), transport: other)
        #expect(taken.map(\.status) == [.fail], "\(taken)")
        #expect(taken.first?.detail.contains("taken by another program (it answers HTTP 200") == true)
        #expect(taken.first?.advice == "stop that program, or set [collect] metrics to a free port")
        let port = listener.port
        _ = consume listener
        let free = await HealthCheck.collectMetrics(Self.settings(port: port), transport: other)
        #expect(free.map(\.status) == [.ok] && free.first?.detail.contains("is free") == true, "\(free)")
    }
}
