import Foundation
import TestSupport
import Testing

/// The fleet page's `/api/map` on real PostgreSQL: each drawn point coloured by the
/// reading, else the model hour, in force there and then; and a year of one device's rows
/// (a million particulate readings) drawn by eight clients at once without the page
/// holding more than its points. It read every reading of the window into memory: 230 MB
/// a request, 866 MB for eight.
@Suite(.enabled(if: ExternalTool.available("mosquitto_pub", "psql", "curl")))
struct FleetMapEndToEndTests {
    typealias Collecting = CollectorInputEndToEndTests

    static func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    static func track(_ id: Int, _ time: Date, device: String) -> String {
        #"{"schema":"airloc.log/1","id":"t\#(id)","kind":"track","time":"\#(iso(time))","latitude":\#(52.5 + Double(id) / 1000),"longitude":13.4,"time_source":"gps","provider":"gpsd","segment":1}"#
    }

    static func air(_ time: Date, aqi: Int) -> String {
        #"{"schema":"airloc.log/1","id":"a1","kind":"air","time":"\#(iso(time))","latitude":52.52,"longitude":13.4,"us_aqi":\#(aqi),"category":"good","pm2_5":4.8,"source":"live","segment":1}"#
    }

    static func sensor(_ time: Date, aqi: Int) -> String {
        #"{"schema":"airloc.log/1","id":"s1","kind":"sensor","time":"\#(iso(time))","latitude":52.52,"longitude":13.4,"model":"sds011","pm2_5":70.5,"pm10":90,"us_aqi":\#(aqi),"samples":10,"flags":[],"segment":1}"#
    }

    /// Kilobytes of the process's resident memory (`VmRSS`) or its peak (`VmHWM`).
    static func memory(_ pid: pid_t, _ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test func theMapIsColouredByWhatWasInForceAndAYearOfReadingsCostsOnlyThePoints() async throws {
        let bench = try await Collecting.Bench.start()
        let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 3600).rounded(.down) * 3600 - 86_400)
        for offset in 0..<5 {
            try await Collecting.publish(
                bench.broker, "airloc/pi-day/history",
                Self.track(offset + 1, start.addingTimeInterval(Double(offset) * 600), device: "pi-day"))
        }
        try await Collecting.publish(bench.broker, "airloc/pi-day/history", Self.air(start + 300, aqi: 20))
        try await Collecting.publish(bench.broker, "airloc/pi-day/history", Self.sensor(start + 1200, aqi: 160))
        // A year of pi-year's rows: a fix every 10 minutes, a reading every 31.5 s (one
        // million), each a copy of the first the collector stored.
        try await Collecting.publish(bench.broker, "airloc/pi-year/history", Self.track(1, start, device: "pi-year"))
        try await Collecting.publish(bench.broker, "airloc/pi-year/history", Self.sensor(start, aqi: 90))
        try await Poll.until("the rows stored") {
            try await bench.database.query(
                "SELECT (SELECT count(*) FROM track) || ' ' || (SELECT count(*) FROM sensor) || ' ' "
                    + "|| (SELECT count(*) FROM air)") == "6 2 1\n"
        }
        for (table, count, step) in [("track", 52_560, 600.0), ("sensor", 1_000_000, 31.5)] {
            let columns = try await bench.database.query(
                """
                SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns
                WHERE table_name = '\(table)' AND table_schema = 'public'
                """
            ).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
            let copied = [
                "id": "'\(table == "track" ? "t" : "s")' || g", "n": "g",
                "time": "r.time - make_interval(secs => g * \(step))", "us_aqi": "g % 300",
            ]
            _ = try await bench.database.query(
                """
                INSERT INTO \(table) (\(columns.joined(separator: ", ")))
                SELECT \(columns.map { copied[$0] ?? "r.\($0)" }.joined(separator: ", "))
                FROM \(table) r, generate_series(2, \(count)) g WHERE r.device_id = 'pi-year'
                """)
        }

        let (server, port) = try await bench.fleetPage()
        defer { server.stop() }

        // 0 s: nothing yet, grey; 600 s: the model hour; 1200 s and 1800 s: the reading (at
        // most 10 minutes old); 2400 s: the reading is 20 minutes old, the model hour again.
        let window = "since=\(Self.iso(start - 60))&until=\(Self.iso(start + 3600))"
        let day = try await FleetPageEndToEndTests.get(port, "/api/map?device=pi-day&\(window)")
        #expect(day.status == 200, "\(day)")
        let points = (FleetPageEndToEndTests.json(day.body) as? [String: Any])?["points"] as? [[Any]] ?? []
        #expect(points.map { $0[3] as? String } == ["#9E9E9E", "#00E400", "#FF0000", "#FF0000", "#00E400"], "\(day)")

        let year = "since=\(Self.iso(start - 366 * 86_400))&until=\(Self.iso(start + 60))"
        let first = try await FleetPageEndToEndTests.get(port, "/api/map?device=pi-year&\(year)")
        let drawn = (FleetPageEndToEndTests.json(first.body) as? [String: Any])?["points"] as? [[Any]] ?? []
        #expect(first.status == 200 && drawn.count > 4_000 && drawn.count <= 5_001, "\(drawn.count) points")
        #expect(Set(drawn.compactMap { $0[3] as? String }).count > 3, "coloured by the readings of the year")
        let before = try Self.memory(server.pid, "VmRSS")
        // Eight clients at once, each its own window (none is kept for another).
        try await withThrowingTaskGroup(of: Int.self) { group in
            for client in 1...8 {
                group.addTask {
                    let since = Self.iso(start - 366 * 86_400 + Double(client) * 60)
                    return try await FleetPageEndToEndTests.get(
                        port, "/api/map?device=pi-year&since=\(since)&until=\(Self.iso(start + 60))"
                    ).status
                }
            }
            for try await status in group { #expect(status == 200) }
        }
        let peak = try Self.memory(server.pid, "VmHWM")
        #expect(peak - before <= 100_000, "the page grew by \(peak - before) kB (from \(before) kB)")
        #expect(try await server.terminate().status == 0)
        try await bench.stop()
    }
}
