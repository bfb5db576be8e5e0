import Collector
import FleetStore
import Foundation
import Logbook
import MQTT

/// `airloc-bench collect-load URL CONNINFO COLLECTOR_PID [DEVICES] [RATE] [SECONDS]`: the
/// collector's figures for docs/scaling.md. DEVICES simulated devices, each its own MQTT
/// session, publish RATE rows a second each for SECONDS through a real broker into a
/// running `airloc collect` (process COLLECTOR_PID) and its PostgreSQL. Reports rows/s
/// sustained, the collector's CPU and peak RSS, the end-to-end lag (PostgreSQL's
/// `stored_at` minus the row's time) p50/p99, rows lost and duplicates stored.
enum CollectBench {
    /// The collector's CPU seconds (user + system) from /proc.
    static func cpu(of pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14 and stime 15 (1-based, as proc(5) counts).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func peakRSS(of pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes / 1024
    }

    /// `collectors`: the processes whose CPU is counted (the members of a share group).
    static func run(url: String, conninfo: String, collectors pids: [Int32], devices: Int, rate: Int, seconds: Int)
        throws
    {
        func cpuSeconds() -> Double { pids.map(cpu(of:)).reduce(0, +) }
        let broker = try FleetBench.broker(url)
        let run = UUID().uuidString.prefix(6).lowercased()
        var clients: [BenchClient] = []
        for device in 0..<devices {
            var options = MQTTOptions(
                host: broker.host, port: broker.port, clientID: "airloc-collect-bench-\(run)-\(device)")
            options.inFlight = 100
            clients.append(try BenchClient(options))
        }
        try FleetBench.waitConnected(clients, seconds: 120)
        let database = try PostgresConnection(conninfo: conninfo, password: nil)
        func stored() throws -> Int {
            let answer = try database.execute("SELECT count(*) FROM track WHERE device_id LIKE $1", ["bench-\(run)-%"])
            return Int((answer.first?.first ?? nil) ?? "0") ?? 0
        }
        let start = Date()
        let cpuBefore = cpuSeconds()
        let ticks = rate * seconds
        var published = 0
        for tick in 0..<ticks {
            FleetBench.waitForTick(tick, rate: rate, start: start)
            for (device, client) in clients.enumerated() {
                var point = FleetBench.benchPoint(tick, start: start)
                point.time = Date()
                let line =
                    "{\"device\":\"bench-\(run)-\(device)\",\"revision\":0,"
                    + Logbook.OutboxRow.track(point).json.dropFirst()
                _ = try client.publish("airloc/bench-\(run)-\(device)/history", line)
                published += 1
            }
        }
        let sending = Date().timeIntervalSince(start)
        try? FleetBench.wait("every row stored", seconds: 300) { try stored() >= published }
        let elapsed = Date().timeIntervalSince(start)
        let cpuUsed = cpuSeconds() - cpuBefore
        let rss = pids.map(peakRSS(of:)).max() ?? 0
        for client in clients { client.close() }
        let figures =
            try database.execute(
                """
                SELECT count(*), count(DISTINCT (device_id, id)),
                       percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM stored_at - time)),
                       percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM stored_at - time))
                FROM track WHERE device_id LIKE $1
                """, ["bench-\(run)-%"]
            ).first ?? []
        func value(_ index: Int) -> Double { Double((index < figures.count ? figures[index] : nil) ?? "0") ?? 0 }
        let (count, distinct, p50, p99) = (Int(value(0)), Int(value(1)), value(2), value(3))
        print(
            String(
                format: "collect load: %d devices × %d rows/s × %d s: published %d in %.1f s; stored %d "
                    + "(%.0f rows/s sustained), all %.1f s after the start; rows lost %d, duplicates stored %d; "
                    + "end-to-end lag p50 %.0f ms, p99 %.0f ms; \(pids.count) collector(s)' CPU %.1f s (%.1f%% of one core, %.0f µs per "
                    + "row), peak RSS %.1f MiB",
                devices, rate, seconds, published, sending, count, Double(count) / max(sending, 1), elapsed,
                published - distinct, count - distinct, p50 * 1000, p99 * 1000, cpuUsed,
                100 * cpuUsed / max(elapsed, 1),
                cpuUsed * 1e6 / Double(max(count, 1)), rss))
        guard distinct == published else {
            throw FleetBench.Failure(description: "\(published - distinct) rows never stored")
        }
    }
}
