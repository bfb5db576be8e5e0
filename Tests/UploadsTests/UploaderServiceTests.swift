import Airloc
import FleetWire
import Foundation
import Geo
import Logbook
import Platform
import TestSupport
import Testing
import Web

@testable import Uploads

/// An upload's loop in-process: it wakes for the logger's new rows and for its gate, not
/// on a timer; a refusal at the start ends the run, a later one only this upload.
@Suite struct UploaderServiceTests {
    typealias Server = UploaderTests.ScriptedServer

    struct Rig {
        let directory: TemporaryDirectory
        let writer: Logbook
        let server: Server
        let time = ManualTime(sleepers: .waitForAdvance)
        let context: ServiceContext
        let run: Task<ServiceFailure?, Never>

        init(script: [(Int, String?)] = []) throws {
            directory = try TemporaryDirectory()
            let writer = try Logbook(url: directory.file("logbook.sqlite"))
            self.writer = writer
            let server = Server(script)
            self.server = server
            let uploader = Uploader(
                plan: try UploaderTests.plan("traccar"), logbook: try Logbook(url: writer.url), sender: server,
                time: time, changes: writer.changes)
            let context = ServiceContext(name: uploader.name, time: time) { _ in }
            self.context = context
            run = uploader.start(context)
        }

        func write(_ seconds: Double) throws {
            let segment = try writer.startSegment(
                at: Date(timeIntervalSince1970: 1_795_000_000), bootID: nil, reason: "start")
            try writer.append(
                TrackPoint(
                    time: Date(timeIntervalSince1970: 1_795_000_000 + seconds),
                    fix: Fix(coordinate: Coordinate(uncheckedLatitude: 52.52, longitude: 13.405), source: .gps),
                    provider: "gpsd", segment: segment))
        }

        var requests: Int { server.bodies.count }
    }

    @Test func itSendsWhenARowIsWrittenAndWaitsOnNothingElse() async throws {
        let rig = try Rig()
        defer { rig.directory.remove() }
        try rig.write(0)
        try await Poll.until("t1 sent") { rig.requests == 1 }
        try await Poll.until("the cursor moved") { (try? rig.writer.uploadCursor("test", kind: .track)) == 1 }
        #expect(rig.time.sleepers == 0, "idle: no timer, it waits for the next row")
        try rig.write(60)
        try await Poll.until("t2 sent") { rig.requests == 2 }
        rig.context.requestStop()
        #expect(await rig.run.value == nil)
    }

    @Test func aServersRetryAfterIsWaitedOnTheClock() async throws {
        let rig = try Rig(script: [(200, nil), (503, "30")])
        defer { rig.directory.remove() }
        try rig.write(0)
        try await Poll.until("t1 sent") { rig.requests == 1 }
        try rig.write(60)
        try await Poll.until("t2 answered 503") { rig.requests == 2 }
        await rig.time.waitForSleepers(1)
        #expect(rig.time.nextWake == .seconds(30), "the server's Retry-After")
        rig.time.advance(by: .seconds(30))
        try await Poll.until("t2 sent again") { rig.requests == 3 }
        try await Poll.until("the cursor at t2") { (try? rig.writer.uploadCursor("test", kind: .track)) == 2 }
        rig.context.requestStop()
        #expect(await rig.run.value == nil)
    }

    /// Logging is the station's first job: a refusal of the run's very first request (a
    /// revoked token) stops this upload, kept as its last error, and never fails the run.
    @Test func aRefusalOfTheFirstRequestStopsOnlyThisUpload() async throws {
        let rig = try Rig(script: [(401, nil)])
        defer { rig.directory.remove() }
        try rig.write(0)
        try await Poll.until("t1 refused") { rig.requests == 1 }
        try await Poll.until("the refusal kept") {
            (try? rig.writer.uploadStatus("test", kinds: [.track]))?.lastError?.contains("401") == true
        }
        try rig.write(60)
        rig.context.requestStop()
        #expect(await rig.run.value == nil, "the run goes on")
        #expect(rig.requests == 1, "nothing more sent after the refusal")
    }

    @Test func aLaterRefusalStopsOnlyThisUpload() async throws {
        let rig = try Rig(script: [(200, nil), (401, nil)])
        defer { rig.directory.remove() }
        try rig.write(0)
        try await Poll.until("t1 sent") { rig.requests == 1 }
        try rig.write(60)
        try await Poll.until("t2 refused") { rig.requests == 2 }
        try rig.write(120)
        // Stopped: it sends nothing more and waits for the stop, without failing the run.
        rig.context.requestStop()
        #expect(await rig.run.value == nil)
        #expect(rig.requests == 2)
    }
}
