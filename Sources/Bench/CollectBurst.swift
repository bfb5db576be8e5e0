import Collector
import FleetStore
import Foundation
import Geo
import Logbook
import MQTT

/// The collector's burst ceiling (docs/scaling.md): a backlog queued at the broker while
/// the collector was stopped, then drained. Two steps, with the collector stopped and
/// started between them by scripts/bench-collect-burst.sh:
/// - `airloc-bench collect-burst-publish URL RUN DEVICES ROWS`: DEVICES simulated devices
///   publish ROWS rows in all (QoS 1) as fast as the broker takes them;
/// - `airloc-bench collect-burst-drain CONNINFO RUN ROWS COLLECTOR_PID`: from the
///   collector's start, how long until PostgreSQL holds every row: rows/s, the
///   collector's CPU per row, rows lost and stored twice.
enum CollectBurst {
    /// `kind` `sensor`: particulate readings (the rows the hourly roll-up is made from)
    /// instead of track rows.
    static func publish(url: String, run: String, devices: Int, rows: Int, kind: String = "track") throws {
        let broker = try FleetBench.broker(url)
        var clients: [BenchClient] = []
        for device in 0..<devices {
            var options = MQTTOptions(host: broker.host, port: broker.port, clientID: "airloc-burst-\(run)-\(device)")
            options.inFlight = 1000
            clients.append(try BenchClient(options))
        }
        try FleetBench.waitConnected(clients, seconds: 120)
        let start = Date()
        var published = [Int](repeating: 0, count: devices)
        for index in 0..<rows {
            let device = index % devices
            var point = FleetBench.benchPoint(index / devices, start: start)
            point.time = start.addingTimeInterval(Double(index / devices))
            let line =
                kind == "sensor"
                ? reading(device: "burst-\(run)-\(device)", number: index / devices + 1, time: point.time)
                : "{\"device\":\"burst-\(run)-\(device)\",\"revision\":0,"
                    + Logbook.OutboxRow.track(point).json.dropFirst()
            _ = try clients[device].publish("airloc/burst-\(run)-\(device)/history", line)
            published[device] += 1
        }
        let end = Date().addingTimeInterval(600)
        for (client, count) in zip(clients, published)
        where !client.waitAcknowledged(count, seconds: end.timeIntervalSinceNow) {
            throw FleetBench.Failure(description: "timed out after 600 s: every row acknowledged by the broker")
        }
        let took = Date().timeIntervalSince(start)
        for client in clients { client.close() }
        print(
            String(format: "collect burst: %d rows of %d devices queued at the broker in %.1f s", rows, devices, took))
    }

    /// A particulate reading as a logger publishes it.
    static func reading(device: String, number: Int, time: Date) -> String {
        "{\"schema\":\"airloc.log/1\",\"device\":\"\(device)\",\"revision\":0,\"id\":\"s\(number)\","
            + "\"kind\":\"sensor\",\"time\":\"\(UTCTime.iso8601(time))\",\"latitude\":52.5,\"longitude\":13.4,"
            + "\"model\":\"sds011\",\"pm2_5\":\(Double(number % 50) + 3.5),\"pm10\":\(Double(number % 70) + 5),"
            + "\"us_aqi\":\(number % 150),\"samples\":10,\"flags\":[],\"segment\":1}"
    }

    /// `started`: when the collector was started (Unix seconds), so that what it stored
    /// before this step connected counts from then; `collectors`: the processes whose CPU
    /// is counted (the members of a share group).
    static func drain(
        conninfo: String, run: String, rows: Int, collectors pids: [Int32], started: Double?, kind: String = "track"
    ) throws {
        let table = kind == "sensor" ? "sensor" : "track"
        let database = try PostgresConnection(conninfo: conninfo, password: nil)
        let start = started.map { Date(timeIntervalSince1970: $0) } ?? Date()
        func cpuSeconds() -> Double { pids.map(CollectBench.cpu(of:)).reduce(0, +) }
        let cpuBefore = cpuSeconds()
        func stored() throws -> Int {
            let answer = try database.execute(
                "SELECT count(*) FROM \(table) WHERE device_id LIKE $1", ["burst-\(run)-%"])
            return Int((answer.first?.first ?? nil) ?? "0") ?? 0
        }
        try? FleetBench.wait("every queued row stored", seconds: 900) { try stored() >= rows }
        let elapsed = Date().timeIntervalSince(start)
        let cpu = cpuSeconds() - cpuBefore
        let figures =
            try database.execute(
                "SELECT count(*), count(DISTINCT (device_id, id)) FROM \(table) WHERE device_id LIKE $1",
                ["burst-\(run)-%"]
            ).first ?? []
        let count = Int((figures.first ?? nil) ?? "0") ?? 0
        let distinct = Int((figures.dropFirst().first ?? nil) ?? "0") ?? 0
        print(
            String(
                format:
                    "collect burst: %d \(kind) rows stored %.1f s after the start: %.0f rows/s; \(pids.count) "
                    + "collector(s)' CPU %.1f s (%.0f µs per row); rows lost %d, stored twice %d",
                count, elapsed, Double(distinct) / max(elapsed, 0.001), cpu, cpu * 1e6 / Double(max(count, 1)),
                rows - distinct, count - distinct))
        guard distinct == rows else { throw FleetBench.Failure(description: "\(rows - distinct) rows never stored") }
    }
}
