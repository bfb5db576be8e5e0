import Airloc
import Foundation
import Geo
import Logbook
import Platform
import Readings
import Sensors
import Settings
import TestSupport
import Testing
import Web

@testable import Uploads

/// An upload against a server of the test's own, in-process on a manual clock: what goes
/// on the wire, and what a failing server does to the cursor.
@Suite struct UploaderTests {
    /// Answers each request with the next status of `script` (then 200), keeping it.
    final class ScriptedServer: HTTPSender, @unchecked Sendable {
        private let lock = NSLock()
        private var script: [(Int, String?)]
        private(set) var received: [HTTPRequest] = []

        init(_ script: [(Int, String?)] = []) { self.script = script }

        func send(_ request: HTTPRequest, service: String, timeout: Duration) async throws(WebError) -> HTTPAnswer {
            lock.withLock {
                received.append(request)
                let (status, retry) = script.isEmpty ? (200, nil) : script.removeFirst()
                return HTTPAnswer(status: status, body: Data(), retryAfter: retry)
            }
        }

        var bodies: [String] { lock.withLock { received.map { String(decoding: $0.body ?? Data(), as: UTF8.self) } } }
    }

    static func logbook(_ directory: TemporaryDirectory, points: Int) throws -> Logbook {
        let logbook = try Logbook(url: directory.file("logbook.sqlite"))
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        let segment = try logbook.startSegment(at: start, bootID: nil, reason: "start")
        for index in 0..<points {
            try logbook.append(
                TrackPoint(
                    time: start.addingTimeInterval(Double(index) * 60),
                    fix: Fix(
                        coordinate: Coordinate(uncheckedLatitude: 52.523_456, longitude: 13.411_987), source: .gps,
                        horizontalAccuracy: 4, altitudeMSL: 35, speed: 10, track: 90, mode: .threeD, satellitesUsed: 9),
                    provider: "gpsd", segment: segment))
        }
        return logbook
    }

    static func plan(_ type: String, extra: String = "") throws -> UploadPlan {
        var settings = Settings(directories: XDGDirectories(environment: ["HOME": "/nonexistent"]))
        var upload = UploadSettings(name: "test")
        upload.type = UploadSettings.Kind(rawValue: type)
        upload.url = "http://127.0.0.1:9/traccar/"
        settings.uploads = [upload]
        return try UploadPlan(upload, settings: settings, deviceID: "abc123def456")
    }

    @Test func traccarGetsKnotsEpochSecondsAndTheExactPlace() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = ScriptedServer()
        var uploader = Uploader(
            plan: try Self.plan("traccar"), logbook: try Self.logbook(directory, points: 1), sender: server,
            time: ManualTime())
        #expect(await uploader.drain() == nil)
        #expect(server.bodies.count == 1)
        let fields = Dictionary(
            uniqueKeysWithValues: server.bodies[0].split(separator: "&").map {
                let pair = $0.split(separator: "=", maxSplits: 1)
                return (String(pair[0]), String(pair[1]))
            })
        #expect(fields["id"] == "abc123def456" && fields["timestamp"] == "1795000000")
        #expect(fields["lat"] == "52.523456" && fields["lon"] == "13.411987", "exact by default on one's own server")
        #expect(abs((Double(fields["speed"] ?? "") ?? 0) - 19.438_445) < 1e-5, "10 m/s in knots")
    }

    @Test func aFailingServerKeepsTheRowsAndEachGoesOnceInOrder() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Self.logbook(directory, points: 5)
        let server = ScriptedServer([(200, nil), (503, "30"), (500, nil), (200, nil)])
        let time = ManualTime()
        var uploader = Uploader(plan: try Self.plan("traccar"), logbook: logbook, sender: server, time: time)
        #expect(await uploader.drain() == nil)
        #expect(try logbook.uploadCursor("test", kind: .track) == 5)
        let timestamps = server.bodies.compactMap { body in
            body.split(separator: "&").first { $0.hasPrefix("timestamp=") }.map { String($0.dropFirst(10)) }
        }
        // t2 was tried three times (503, 500, then accepted); every other row once, in order.
        #expect(
            timestamps == [
                "1795000000", "1795000060", "1795000060", "1795000060", "1795000120", "1795000180", "1795000240",
            ])
        #expect(time.pauses.contains(.seconds(30)), "the server's Retry-After was waited")
        let status = try logbook.uploadStatus("test", kinds: [.track])
        #expect(status.backlog == 0 && status.sent == 5 && status.skipped == 0)
    }

    /// A sensor.community reading is two pushes (PM on pin 1, the position on pin 9): when
    /// the second fails, the retry sends the second only — the map never counts a reading twice.
    @Test func aReadingWhoseSecondPushFailedIsNotPushedTwice() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook(url: directory.file("logbook.sqlite"))
        try logbook.append(
            SensorRecord(
                SensorSample(
                    model: .sds011, device: "/dev/null", serial: nil, mean: ParticulateValues(pm2_5: 12.5, pm10: 20),
                    samples: 9, windowSeconds: 9, usAQI: 52, correctedPM2_5: nil, flags: []),
                time: Date(timeIntervalSince1970: 1_795_000_000), timeSource: "gps",
                coordinate: Coordinate(uncheckedLatitude: 52.52, longitude: 13.405), segment: nil))
        var settings = Settings(directories: XDGDirectories(environment: ["HOME": "/nonexistent"]))
        var upload = UploadSettings(name: "luftdaten")
        upload.type = .sensorCommunity
        upload.url = "http://127.0.0.1:9/"
        upload.maxAge = 0
        settings.uploads = [upload]
        let server = ScriptedServer([(200, nil), (503, nil)])
        var uploader = Uploader(
            plan: try UploadPlan(upload, settings: settings, deviceID: "4711"), logbook: logbook, sender: server,
            time: ManualTime())
        #expect(await uploader.drain() == nil)
        let pins = server.received.map { request in request.headers.first { $0.hasPrefix("X-Pin") } ?? "" }
        #expect(pins == ["X-Pin: 1", "X-Pin: 9", "X-Pin: 9"], "the PM push once, the position again")
        #expect(try logbook.uploadCursor("luftdaten", kind: .sensor) == 1)
    }

    /// Public maps are read as the truth: a reading airloc flagged (warm-up cut short) is
    /// skipped and counted, unless the section says `flagged = send`.
    @Test(arguments: [false, true])
    func aFlaggedReadingReachesAPublicMapOnlyWhenAskedTo(sendFlagged: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook(url: directory.file("logbook.sqlite"))
        for (offset, flags) in [(0.0, [SensorSample.Flag.warmUpCutShort]), (60, [])] {
            try logbook.append(
                SensorRecord(
                    SensorSample(
                        model: .sds011, device: "/dev/null", serial: nil,
                        mean: ParticulateValues(pm2_5: 12.5 + offset, pm10: 20), samples: 9, windowSeconds: 9,
                        usAQI: 52, correctedPM2_5: nil, flags: flags),
                    time: Date(timeIntervalSince1970: 1_795_000_000 + offset), timeSource: "gps", coordinate: nil,
                    segment: nil))
        }
        var settings = Settings(directories: XDGDirectories(environment: ["HOME": "/nonexistent"]))
        var upload = UploadSettings(name: "luftdaten")
        upload.type = .sensorCommunity
        upload.url = "http://127.0.0.1:9/"
        upload.maxAge = 0
        upload.sendFlagged = sendFlagged
        settings.uploads = [upload]
        let server = ScriptedServer()
        var uploader = Uploader(
            plan: try UploadPlan(upload, settings: settings, deviceID: "4711"), logbook: logbook, sender: server,
            time: ManualTime())
        #expect(await uploader.drain() == nil)
        let pm25 = server.received.compactMap { request in
            String(decoding: request.body ?? Data(), as: UTF8.self).range(of: "\"P2\"").map { _ in request }
        }
        #expect(pm25.count == (sendFlagged ? 2 : 1), "\(server.received.count) requests")
        let status = try logbook.uploadStatus("luftdaten", kinds: [.sensor])
        #expect(status.backlog == 0 && status.skipped == (sendFlagged ? 0 : 1) && status.sent == (sendFlagged ? 2 : 1))
    }
}
