import Airloc
import Fleet
import FleetWire
import Foundation
import Logbook
import MQTT
import Platform
import Settings

/// The fleet's figures for docs/performance.md and docs/scaling.md, through airloc's own
/// MQTT client code (MQTTConnection, FleetPublisher) against a real broker.
enum FleetBench {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// CPU seconds this process used (all threads: libmosquitto's network thread too).
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    static func broker(_ url: String) throws -> MQTTBroker {
        guard let broker = MQTTSettings.broker(url), !broker.tls else {
            throw Failure(description: "expected mqtt://host:port, got \(url)")
        }
        return broker
    }

    /// Paced on the wall clock: tick n goes out at n / rate seconds after `start`.
    static func waitForTick(_ tick: Int, rate: Int, start: Date) {
        let wait = start.addingTimeInterval(Double(tick) / Double(rate)).timeIntervalSinceNow
        if wait > 0 { usleep(UInt32(wait * 1e6)) }
    }

    /// A simulated device's track point of `tick`, its id the tick's sequence number.
    static func benchPoint(_ tick: Int, start: Date) -> TrackPoint {
        var point = LogbookBench.point(tick, segment: 1, start: start)
        point.id = Int64(tick + 1)
        return point
    }

    /// Every client connected, each woken by its connection's events; a failure after `seconds`.
    static func waitConnected(_ clients: [BenchClient], seconds: Double) throws {
        let end = Date().addingTimeInterval(seconds)
        for client in clients where !client.waitConnected(seconds: end.timeIntervalSinceNow) {
            throw Failure(description: "timed out after \(Int(seconds)) s: \(clients.count) clients connected")
        }
    }

    /// Waits (up to `seconds`) until `condition` holds, looking every 5 ms: for what another
    /// process keeps (a logbook's or a database's rows), which sends this one no event.
    static func wait(_ what: String, seconds: Double, _ condition: () throws -> Bool) throws {
        let end = Date().addingTimeInterval(seconds)
        while !(try condition()) {
            guard Date() < end else { throw Failure(description: "timed out after \(Int(seconds)) s: \(what)") }
            usleep(5000)
        }
    }

    /// `airloc-bench mqtt-drain DIR URL [ROWS]`: a logbook holding ROWS unsent track rows
    /// (a broker down for a while) drained into the broker by the publisher the logger
    /// runs: time until every row is acknowledged, CPU per row.
    static func drain(directory: String, url: String, rows: Int) throws {
        let broker = try broker(url)
        let file = URL(fileURLWithPath: directory).appendingPathComponent("drain.sqlite")
        try? FileManager.default.removeItem(at: file)
        let logbook = try Logbook(url: file, outbox: true)
        let segment = try logbook.startSegment(at: Date(), bootID: nil, reason: "start")
        let start = Date().addingTimeInterval(-Double(rows))
        try logbook.bulk {
            for index in 0..<rows { try logbook.append(LogbookBench.point(index, segment: segment, start: start)) }
        }
        let client = try MQTT.client(MQTTOptions(host: broker.host, port: broker.port, clientID: "airloc-bench-drain"))
        var settings = Settings(directories: XDGDirectories(environment: ProcessInfo.processInfo.environment))
        settings.mqtt.discovery = false
        let publisher = FleetPublisher(logbook: logbook, client: client, settings: settings, deviceID: "bench")
        // The publisher and its connection as `log run` runs them: one group, until stopped.
        let cpuBefore = cpuSeconds()
        let began = Date()
        let group = Task { await ServiceGroup([publisher, client]).run() }
        try wait("\(rows) rows acknowledged", seconds: 600) { try logbook.unsentCount() == 0 }
        let elapsed = Date().timeIntervalSince(began)
        let cpu = cpuSeconds() - cpuBefore
        group.cancel()
        let stopped = DispatchSemaphore(value: 0)
        Task {
            _ = await group.value
            stopped.signal()
        }
        stopped.wait()
        print(
            String(
                format: "mqtt drain: %d unsent rows acknowledged by the broker in %.2f s (%.0f rows/s), "
                    + "%.0f µs CPU per row (logbook read, JSON, publish, PUBACK, marked sent)",
                rows, elapsed, Double(rows) / elapsed, cpu * 1e6 / Double(rows)))
    }

    /// `airloc-bench mqtt-load URL [DEVICES] [RATE] [SECONDS]`: DEVICES simulated devices,
    /// each its own MQTTConnection (its own session and network thread), publishing RATE
    /// log rows a second for SECONDS; a persistent-session subscriber checks that every
    /// row arrived at least once. Exit 1 when one is missing.
    static func load(url: String, devices: Int, rate: Int, seconds: Int) throws {
        let broker = try broker(url)
        let run = UUID().uuidString.prefix(8)
        var listen = MQTTOptions(host: broker.host, port: broker.port, clientID: "airloc-bench-sink-\(run)")
        listen.inFlight = 1000
        let sink = try BenchClient(listen)
        try waitConnected([sink], seconds: 30)
        sink.subscribe("airloc-load-\(run)/#")
        // A probe through the subscription proves it is active before the load starts: sent
        // again each second until it comes back (the subscription may not be in place yet).
        let probed = (0..<30).contains { _ in
            _ = try? sink.publish("airloc-load-\(run)/probe", "probe")
            return sink.waitForMessage(endingIn: "/probe", seconds: 1)
        }
        guard probed else { throw Failure(description: "timed out after 30 s: the subscription active") }
        var clients: [BenchClient] = []
        for device in 0..<devices {
            clients.append(
                try BenchClient(
                    MQTTOptions(host: broker.host, port: broker.port, clientID: "airloc-bench-\(run)-\(device)")))
        }
        try waitConnected(clients, seconds: 120)
        var received: [String: Set<Int>] = [:]
        var messages = 0
        func collect() {
            for message in sink.takeMessages() where !message.topic.hasSuffix("/probe") {
                messages += 1
                // The topic names the device; the row's id is its sequence number.
                guard
                    let id = message.payload.split(separator: "\"id\":\"t", maxSplits: 1).last?.prefix(while: {
                        $0 != "\""
                    }),
                    let number = Int(id)
                else { continue }
                received[message.topic, default: []].insert(number)
            }
        }
        let start = Date()
        let cpuBefore = cpuSeconds()
        let ticks = rate * seconds
        var published = 0
        for tick in 0..<ticks {
            waitForTick(tick, rate: rate, start: start)
            for (device, client) in clients.enumerated() {
                let point = benchPoint(tick, start: start)
                let line = Logbook.OutboxRow.track(point).json
                _ = try client.publish("airloc-load-\(run)/\(device)/history", line)
                published += 1
            }
            collect()
        }
        let sending = Date().timeIntervalSince(start)
        let expected = devices * ticks
        try? wait("every row received", seconds: 120) {
            collect()
            return received.values.reduce(0) { $0 + $1.count } >= expected
        }
        let elapsed = Date().timeIntervalSince(start)
        let cpu = cpuSeconds() - cpuBefore
        for client in clients { client.close() }
        sink.close()
        let distinct = received.values.reduce(0) { $0 + $1.count }
        print(
            String(
                format: "mqtt load: %d devices × %d rows/s × %d s: published %d in %.1f s, received %d distinct "
                    + "(%d messages, %d duplicates) %.1f s after the start; %.0f µs CPU per row (both ends)",
                devices, rate, seconds, published, sending, distinct, messages, messages - distinct, elapsed,
                cpu * 1e6 / Double(max(published, 1))))
        guard distinct == expected else {
            throw Failure(description: "\(expected - distinct) of \(expected) rows never arrived")
        }
    }
}
