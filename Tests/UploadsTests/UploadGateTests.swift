import Foundation
import TestSupport
import Testing
import Web

@testable import Uploads

/// When an upload sends, on a manual clock: paced, backed off, stopped.
@Suite struct UploadGateTests {
    @Test func failuresBackOffDoublingToTenMinutesAndASuccessEndsIt() {
        let time = ManualTime()
        var gate = UploadGate(pace: .milliseconds(20))
        #expect(gate.next(after: time.now) == time.now, "nothing sent yet: at once")
        let pauses = (0..<9).map { _ in gate.retry(after: nil, at: time.now) }
        #expect(pauses.map { Int($0.seconds) } == [5, 10, 20, 40, 80, 160, 320, 600, 600])
        gate.accepted(at: time.now)
        #expect(gate.failures == 0)
        #expect(gate.next(after: time.now) == time.now + .milliseconds(20), "paced after a success")
    }

    @Test func theServersRetryAfterIsHonouredUpToAnHour() {
        let time = ManualTime()
        var gate = UploadGate(pace: .zero)
        #expect(gate.retry(after: .seconds(90), at: time.now) == .seconds(90))
        #expect(gate.next(after: time.now) == time.now + .seconds(90))
        #expect(gate.retry(after: .seconds(86_400), at: time.now) == .seconds(3600), "a day is too long to wait")
    }

    @Test func aRefusalStopsForGood() {
        let time = ManualTime()
        var gate = UploadGate(pace: .zero)
        gate.refused("bad token")
        #expect(gate.next(after: time.now) == nil && gate.stopped == "bad token")
        gate.accepted(at: time.now)
        #expect(gate.stopped == "bad token", "nothing reopens it")
    }

    @Test func answersAreJudgedAsTheServersMeanThem() {
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        func judge(_ status: Int, _ retry: String? = nil, type: String = "owntracks-http") -> UploadVerdict {
            UploadVerdict.judge(HTTPAnswer(status: status, body: Data(), retryAfter: retry), type: type, now: now)
        }
        #expect(judge(200) == .accepted && judge(201) == .accepted)
        #expect(judge(429, "30") == .retry(after: .seconds(30), "HTTP 429"))
        #expect(judge(503, "Wed, 18 Nov 2026 11:08:40 GMT") == .retry(after: .seconds(120), "HTTP 503"))
        #expect(judge(500) == .retry(after: nil, "HTTP 500"))
        if case .refused = judge(401) {} else { Issue.record("401 must stop") }
        if case .refused = judge(404) {} else { Issue.record("404 must stop") }
        if case .refused = judge(400, type: "traccar") {} else { Issue.record("Traccar's unknown device must stop") }
        #expect(judge(422) == .rejected("HTTP 422"), "a row the server will never take is skipped")
        #expect(judge(400, type: "opensensemap") == .rejected("HTTP 400"))
    }
}

/// OwnTracks draws each device by its two-letter tracker id: the devices of a fleet named
/// `pi-4` and `pi-5` must not both be "pi".
@Suite struct TrackerIDTests {
    @Test func devicesOfOneFleetAreToldApart() {
        #expect(PositionFormats.trackerID("pi-4") == "p4")
        #expect(PositionFormats.trackerID("pi-5") == "p5")
        #expect(PositionFormats.trackerID("x") == "x")
        #expect(PositionFormats.trackerID("--") == "al")
    }
}
