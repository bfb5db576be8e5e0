import Foundation
import Geo
import Location
import Testing

@testable import Airloc

/// The rules of following a location, event by event, without gpsd or a clock: what a
/// script reading `airloc locate --watch` (or the logger) would see.
@Suite struct LocationFollowerTests {
    let t0 = Date(timeIntervalSince1970: 1_795_000_000)
    let berlin = Coordinate(uncheckedLatitude: 52.520_08, longitude: 13.404_95)

    func gps(_ coordinate: Coordinate, accuracy: Double = 10, at offset: TimeInterval = 0) -> Fix {
        Fix(
            coordinate: coordinate, source: .gps, horizontalAccuracy: accuracy, altitudeMSL: 35, speed: 1.2,
            mode: .threeD, receivedAt: t0.addingTimeInterval(offset))
    }

    func event(_ action: LocationFollower.Action) -> FollowEvent? {
        switch action {
        case .none: return nil
        case .report(let event), .reportAndAskFallback(let event), .reportAndFinish(let event): return event
        }
    }

    @Test func fixesAreReportedAsTheAuthorizationAllows() {
        var follower = LocationFollower(provider: "gpsd", accuracy: .reduced, hasFallback: false)
        let reported = event(follower.received(.fix(gps(berlin)), at: t0))
        let fix = try? #require(reported?.fix)
        #expect(fix?.coordinate == Coordinate(uncheckedLatitude: 52.5, longitude: 13.4), "the 0.05° grid")
        #expect(fix?.altitudeMSL == nil && fix?.speed == nil, "nothing finer than the city")
        #expect((fix?.horizontalAccuracy ?? 0) >= 5000)
    }

    @Test func aWorseFixInsideTheHeldOneIsNotReported() {
        var follower = LocationFollower(provider: "gpsd", accuracy: .full, hasFallback: false)
        #expect(event(follower.received(.fix(gps(berlin, accuracy: 5)), at: t0))?.kind == .fix)
        let nearby = Coordinate(uncheckedLatitude: 52.520_1, longitude: 13.404_95)
        #expect(follower.received(.fix(gps(nearby, accuracy: 50, at: 1)), at: t0) == .none)
    }

    @Test func anOutageAsksTheRestOfTheChainOnceAndItsAnswerOnlyStandsIn() {
        var follower = LocationFollower(provider: "gpsd", accuracy: .full, hasFallback: true)
        _ = follower.received(.fix(gps(berlin)), at: t0)
        guard case .reportAndAskFallback(let lost) = follower.received(.lost(last: nil, reason: "gone"), at: t0) else {
            Issue.record("a lost fix should ask the fallback")
            return
        }
        #expect(lost.kind == .lost && lost.reason == "gone")
        let manual = Fix(coordinate: Coordinate(uncheckedLatitude: 48.85, longitude: 2.35), source: .manual)
        let standIn = event(follower.fallbackAnswered(manual, provider: "manual", at: t0))
        #expect(standIn?.kind == .fix && standIn?.provider == "manual")
        // Still out: the fallback is not asked again for the same outage.
        guard case .report = follower.received(.disconnected(reason: "closed", retryIn: 0.5), at: t0) else {
            Issue.record("the same outage asked the fallback twice")
            return
        }
        // gpsd is back: its fix replaces the stand-in, though it is less accurate than manual's none.
        let back = event(follower.received(.fix(gps(berlin, accuracy: 30, at: 5)), at: t0))
        #expect(back?.provider == "gpsd")
        // A new outage asks again.
        if case .reportAndAskFallback = follower.received(.noFixYet(seconds: 10, lastMode: .noFix), at: t0) {
        } else {
            Issue.record("a new outage should ask the fallback again")
        }
    }

    @Test func withoutAFallbackAnOutageIsOnlyReported() {
        var follower = LocationFollower(provider: "gpsd", accuracy: .full, hasFallback: false)
        let action = follower.received(.disconnected(reason: "refused", retryIn: 1), at: t0)
        #expect(
            action
                == .report(FollowEvent(kind: .disconnected, provider: "gpsd", reason: "refused", retryIn: 1, time: t0)))
    }

    @Test func theStreamEndsAfterTheFixesAskedFor() {
        var follower = LocationFollower(provider: "gpsd", accuracy: .full, hasFallback: true, maximumFixes: 2)
        #expect(event(follower.received(.connected, at: t0))?.kind == .connected)
        guard case .report = follower.received(.fix(gps(berlin)), at: t0) else {
            Issue.record("the first fix should not finish")
            return
        }
        _ = follower.received(.lost(last: nil, reason: "gone"), at: t0)
        let manual = Fix(coordinate: berlin, source: .manual)
        guard case .reportAndFinish = follower.fallbackAnswered(manual, provider: "manual", at: t0) else {
            Issue.record("the second fix, a stand-in, should finish")
            return
        }
        #expect(follower.received(.fix(gps(berlin, at: 9)), at: t0) == .none, "nothing after the end")
    }
}
