import Foundation
import TestSupport
import Testing

/// One row dated 2099 (a device whose clock is wrong does this to itself, and anyone on an
/// open broker can do it to a device) pinned the fleet page: `/api/last` said 2099, the
/// metric said 4070908800 and the stale alert could never fire again. Rows dated over an
/// hour past the server's clock are now no device's last row, marker or metric.
@Suite(.enabled(if: ExternalTool.available("mosquitto_pub", "psql", "curl")))
struct FleetFutureRowEndToEndTests {
    typealias Collecting = CollectorInputEndToEndTests

    static func track(_ id: Int, _ time: Date) -> String {
        #"{"schema":"airloc.log/1","id":"t\#(id)","kind":"track","time":"\#(ISO8601DateFormatter().string(from: time))","latitude":52.52,"longitude":13.405,"time_source":"gps","provider":"gpsd","segment":1}"#
    }

    @Test func aRowFromTheFutureIsNoDevicesLastRow() async throws {
        let bench = try await Collecting.Bench.start()
        let now = Date()
        let future = try #require(ISO8601DateFormatter().date(from: "2099-01-01T00:00:00Z"))
        try await Collecting.publish(bench.broker, "airloc/pi-clock/history", Self.track(1, now))
        try await Collecting.publish(bench.broker, "airloc/pi-clock/history", Self.track(2, future))
        try await Poll.until("both rows stored") {
            try await bench.database.query("SELECT count(*) FROM track WHERE device_id = 'pi-clock'") == "2\n"
        }

        let (server, port) = try await bench.fleetPage()
        defer { server.stop() }
        try await Poll.until("the page served") {
            try await FleetPageEndToEndTests.get(port, "/api/last").status == 200
        }
        let reply = try await FleetPageEndToEndTests.get(port, "/api/last")
        let last = FleetPageEndToEndTests.json(reply.body) as? [[String: Any]] ?? []
        let device = try #require(last.first { $0["device_id"] as? String == "pi-clock" }, "\(last)")
        let time = (device["time"] as? String).flatMap(ISO8601DateFormatter.fractional)
        #expect(time.map { abs($0.timeIntervalSince(now)) < 5 } == true, "the last row is the one of now: \(device)")

        let metrics = try await FleetPageEndToEndTests.get(port, "/metrics").body
        let line = metrics.split(separator: "\n").first {
            $0.hasPrefix("airloc_fleet_device_last_row_timestamp_seconds{device=\"pi-clock\"}")
        }
        let value = line.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
        #expect(value.map { $0 < Date().timeIntervalSince1970 + 3600 } == true, "\(line ?? "no line")")
        #expect(try await server.terminate().status == 0)
        try await bench.stop()
    }
}
