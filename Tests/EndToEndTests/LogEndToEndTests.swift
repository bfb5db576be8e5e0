import Foundation
import TestSupport
import Testing

/// `airloc log` as a field device runs it: the built binary following a real gpsd
/// (gpsfake), the HTTP double for the air service, a real SQLite file; every export read
/// back by Python's own parsers.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3")))
struct LogEndToEndTests {
    static func json(_ text: String) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }

    /// Polls `log status --json` until `condition` holds (the logger writes as it goes).
    static func waitForStatus(
        _ world: AirlocWorld, _ what: String, _ condition: @escaping @Sendable ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        let seen = Seen()
        try await Poll.until(what) {
            let result = try await world.run(["log", "status", "--json"])
            guard result.status == 0, let status = json(result.stdout), condition(status) else { return false }
            seen.status = status
            return true
        }
        return seen.status
    }

    /// The status a wait accepted (its condition runs in a closure).
    final class Seen: @unchecked Sendable {
        var status: [String: Any] = [:]
    }

    static func python(_ script: String, _ arguments: [String]) async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            try #require(ExternalTool.path(of: "python3")), ["-c", script] + arguments,
            environment: ProcessInfo.processInfo.environment)
    }

    /// Records, stops cleanly on SIGTERM, and every export format parses with as many rows
    /// as the logbook holds.
    @Test func theLoggerRecordsStopsCleanlyAndEveryExportParses() async throws {
        let world = try await AirlocWorld(config: "[log]\ntrack-interval = 1\n")
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        let status = try await Self.waitForStatus(world, "3 track points and an air reading") {
            ($0["track_rows"] as? Int ?? 0) >= 3 && ($0["air_rows"] as? Int ?? 0) >= 1
        }
        #expect(status["pending"] as? Int == 0)
        logger.signal(SIGTERM)
        let stopped = try await logger.wait()
        #expect(stopped.status == 0, "\(stopped)")
        #expect(stopped.stderr.contains("logging to") && stopped.stderr.contains("stopped"))
        #expect(!stopped.stderr.contains("52.52"), "no position in the journal: \(stopped.stderr)")

        let final = try #require(Self.json(try await world.run(["log", "status", "--json"]).stdout))
        let (track, air) = (try #require(final["track_rows"] as? Int), try #require(final["air_rows"] as? Int))
        // NDJSON through stdout: every line is also checked against docs/schema/log.schema.json.
        let ndjson = try await world.run(["log", "export", "--format", "ndjson"])
        #expect(ndjson.status == 0)
        #expect(ndjson.stdout.split(separator: "\n").count == track + air)
        var files: [String] = []
        for format in ["csv", "gpx", "geojson"] {
            let file = world.home.file("log.\(format)").path
            let exported = try await world.run(["log", "export", "--format", format, "--output", file])
            #expect(exported.status == 0, "\(exported)")
            files.append(file)
        }
        let check = """
            import csv, json, sys, xml.etree.ElementTree as ET
            rows = list(csv.DictReader(open(sys.argv[1], newline="")))
            g = "{http://www.topografix.com/GPX/1/1}"
            gpx = ET.parse(sys.argv[2]).getroot()
            geo = json.load(open(sys.argv[3]))
            kinds = [f["geometry"]["type"] for f in geo["features"]]
            print(len([r for r in rows if r["kind"] == "track"]), len([r for r in rows if r["kind"] == "air"]),
                  len(gpx.findall(f".//{g}trkpt")), len(gpx.findall(f"{g}wpt")),
                  sum(len(f["geometry"]["coordinates"]) for f in geo["features"] if f["geometry"]["type"] == "LineString")
                  + len([f for f in geo["features"] if f["properties"]["kind"] == "track" and f["geometry"]["type"] == "Point"]),
                  len([f for f in geo["features"] if f["properties"]["kind"] == "air" and kinds and f["geometry"]["type"] == "Point"]))
            """
        let parsed = try await Self.python(check, files)
        #expect(parsed.status == 0, "\(parsed)")
        #expect(
            parsed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                == Array(repeating: "\(track) \(air)", count: 3).joined(separator: " "), "\(parsed)")
        #expect(FileManager.default.fileExists(atPath: world.home.file(".log.csv.partial").path) == false)
    }

    /// Logging senses continuously and unattended: a grant for use at a terminal is not
    /// enough, and the refusal names the one that is.
    @Test func loggingNeedsTheAlwaysGrant() async throws {
        let world = try await AirlocWorld(authorized: false)
        defer { world.stop() }
        _ = try await world.run(["auth", "grant"])
        let refused = try await world.run(["log", "run"])
        #expect(refused.status == 77, "\(refused)")
        #expect(refused.stderr.contains("airloc auth grant --always"))
        let status = try await world.run(["log", "status"])
        #expect(status.status == 66 && status.stderr.contains("no logbook"), "nothing was created: \(status)")
    }

    /// An hour the logger could not fetch (pending) is back-filled from the service's
    /// history as soon as the service answers: one request, the row gets its hour's value.
    @Test func aPendingHourIsBackFilledEndToEnd() async throws {
        let world = try await AirlocWorld(config: "[log]\ntrack-interval = 1\n")
        defer { world.stop() }
        // Create the logbook, then leave a pending hour in it, as an outage does.
        let first = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        _ = try await Self.waitForStatus(world, "the first air reading") { ($0["air_rows"] as? Int ?? 0) >= 1 }
        first.signal(SIGTERM)
        #expect(try await first.wait().status == 0)
        let database = world.home.file("state/airloc/logbook.sqlite").path
        let hour = Int(Date().timeIntervalSince1970 / 3600) * 3600 - 5 * 3600
        let insert = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            sent = db.execute("SELECT sent_lat, sent_lon FROM air LIMIT 1").fetchone()
            db.execute("INSERT INTO air (hour_s, logged_ms, lat, lon, sent_lat, sent_lon, source, reason, segment) "
                       "VALUES (?, ?, 52.52, 13.405, ?, ?, 'pending', 'network down', 1)",
                       (int(sys.argv[2]), int(sys.argv[2]) * 1000, sent[0], sent[1]))
            db.commit()
            """
        let inserted = try await Self.python(insert, [database, String(hour)])
        #expect(inserted.status == 0, "\(inserted)")
        let asked = try world.double.requests().count
        let second = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        _ = try await Self.waitForStatus(world, "the back-fill") { ($0["pending"] as? Int) == 0 }
        second.signal(SIGTERM)
        let stopped = try await second.wait()
        #expect(stopped.status == 0 && stopped.stderr.contains("back-filled 1 hour ("), "\(stopped)")
        let history = try world.double.requests().dropFirst(asked).filter { $0.query.contains("hourly=") }
        #expect(history.count == 1, "\(history)")
        let rows = try await world.run(["log", "export", "--format", "ndjson", "--kind", "air"])
        let filled = rows.stdout.split(separator: "\n").compactMap { Self.json(String($0)) }
            .first { $0["source"] as? String == "backfill" }
        #expect(filled?["us_aqi"] as? Int == 100 + (hour / 3600) % 24, "the value of its own hour: \(rows.stdout)")
    }

    /// SIGKILL in the middle of a write loop: the file passes SQLite's integrity check and
    /// holds every row whose commit was reported.
    @Test func aKillMidWriteLosesNothingCommitted() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let database = home.file("logbook.sqlite").path
        let bench = URL(fileURLWithPath: AirlocBinary.path).deletingLastPathComponent()
            .appendingPathComponent("airloc-bench").path
        let writer = try ChildProcess(bench, ["logbook-write", database, "1000000"], environment: [:])
        try await Poll.until("300 committed rows") { writer.output.contains("committed 300\n") }
        writer.signal(SIGKILL)
        let killed = try await writer.wait()
        #expect(killed.status != 0)
        let reported =
            killed.stdout.split(separator: "\n").compactMap { Int($0.split(separator: " ").last ?? "") }.max() ?? 0
        #expect(reported >= 300)
        let check = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print(db.execute("PRAGMA integrity_check").fetchone()[0], db.execute("SELECT count(*) FROM track").fetchone()[0])
            """
        let result = try await Self.python(check, [database])
        let words = result.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(words.first == "ok", "\(result)")
        #expect((Int(words.last ?? "") ?? 0) >= reported, "every reported commit is there: \(result)")
        let status = try await AirlocBinary.run(
            ["log", "status", "--json"],
            environment: AirlocBinary.environment(home: home.url, extra: ["AIRLOC_LOG_DATABASE": database]))
        #expect(status.status == 0, "the next reader opens it: \(status)")
    }

    /// gpsd stops and comes back (a restart, the receiver replugged): the logger waits
    /// for it, says so, and continues in a new segment.
    @Test func gpsdGoingAwayAndComingBackOpensANewSegment() async throws {
        let world = try await AirlocWorld(config: "[log]\ntrack-interval = 1\n")
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        let before = try await Self.waitForStatus(world, "two track points") { ($0["track_rows"] as? Int ?? 0) >= 2 }
        #expect(before["segments"] as? Int == 1)
        world.gpsd.stop()
        try await Poll.until("the logger to notice gpsd went away") { logger.errors.contains("no position") }
        let again = try await GPSFake.start(log: world.home.file("track.nmea"), port: world.gpsd.port)
        defer { again.stop() }
        let rowsBefore = before["track_rows"] as? Int ?? 0
        let after = try await Self.waitForStatus(world, "a second segment with points") {
            ($0["segments"] as? Int ?? 0) >= 2 && ($0["track_rows"] as? Int ?? 0) > rowsBefore
        }
        #expect(after["segments"] as? Int == 2)
        logger.signal(SIGTERM)
        let stopped = try await logger.wait()
        #expect(stopped.status == 0, "\(stopped)")
    }
}
