import Foundation
import Geo
import Testing

@testable import Location

/// The gpsd watch state machine, event by event, with a clock the test controls.
@Suite struct GPSDTrackerTests {
    let t0 = Date(timeIntervalSince1970: 1_750_000_000)
    let timing = GPSDTiming(firstFix: 10, staleAfter: 5, lostAfter: 30, initialBackoff: 0.5, maximumBackoff: 8)

    func report(mode: FixMode, latitude: Double = 52.52, longitude: Double = 13.405) -> GPSDReport {
        GPSDReport(
            hasPosition: mode.rawValue >= 2, hasMode: true, mode: mode, latitude: mode.rawValue >= 2 ? latitude : .nan,
            longitude: mode.rawValue >= 2 ? longitude : .nan, altitudeHAE: nil, altitudeMSL: nil, eph: 12, epx: nil,
            epy: nil, speed: nil, track: nil, time: nil, satellitesUsed: 7)
    }

    func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    @Test func aValidReportIsAFixStampedWithTheLocalClock() {
        var tracker = GPSDTracker(timing: timing)
        #expect(tracker.connected(at: at(0)) == .emit(.connected))
        guard case .emit(.fix(let fix)) = tracker.received(report(mode: .threeD), at: at(1)) else {
            Issue.record("expected a fix")
            return
        }
        #expect(fix.coordinate.latitude == 52.52 && fix.receivedAt == at(1) && fix.satellitesUsed == 7)
        #expect(tracker.tick(at: at(4.9)) == .none)
    }

    @Test func receiverSayingNoFixMakesTheFixStaleOnceThenLost() {
        var tracker = GPSDTracker(timing: timing)
        _ = tracker.connected(at: at(0))
        _ = tracker.received(report(mode: .threeD), at: at(1))
        guard case .emit(.stale(let held, let reason)) = tracker.received(report(mode: .noFix), at: at(2)) else {
            Issue.record("expected stale")
            return
        }
        #expect(held.coordinate.latitude == 52.52)
        #expect(reason.contains("no fix"))
        // Reported once, not for every further mode-1 report.
        #expect(tracker.received(report(mode: .noFix), at: at(3)) == .none)
        #expect(tracker.tick(at: at(30.9)) == .none)
        guard case .emit(.lost(let last, _)) = tracker.tick(at: at(31)) else {
            Issue.record("expected lost")
            return
        }
        #expect(last?.coordinate.longitude == 13.405)
        #expect(tracker.tick(at: at(60)) == .none)
    }

    @Test func silenceMakesTheFixStaleThenLost() {
        var tracker = GPSDTracker(timing: timing)
        _ = tracker.connected(at: at(0))
        _ = tracker.received(report(mode: .twoD), at: at(1))
        #expect(tracker.tick(at: at(5.9)) == .none)
        guard case .emit(.stale(_, let reason)) = tracker.tick(at: at(6)) else {
            Issue.record("expected stale")
            return
        }
        #expect(reason == "no valid fix for 5 s")
        guard case .emit(.lost) = tracker.tick(at: at(31)) else {
            Issue.record("expected lost")
            return
        }
        // A new fix makes it current again.
        guard case .emit(.fix) = tracker.received(report(mode: .threeD), at: at(40)) else {
            Issue.record("expected a fix after recovery")
            return
        }
        #expect(tracker.tick(at: at(41)) == .none)
    }

    /// The reader waits for data until the tracker's next deadline and no longer: the
    /// first fix overdue, then the fix going stale, then lost, then nothing to wait for.
    @Test func theNextCheckIsTheNextThingTheTrackerWouldSay() {
        var tracker = GPSDTracker(timing: timing)
        #expect(tracker.nextCheck == nil, "not connected: nothing to say without a connection")
        _ = tracker.connected(at: at(0))
        #expect(tracker.nextCheck == at(10), "the first fix overdue")
        _ = tracker.received(report(mode: .threeD), at: at(1))
        #expect(tracker.nextCheck == at(6), "stale 5 s after the fix")
        _ = tracker.tick(at: tracker.nextCheck!)
        #expect(tracker.nextCheck == at(31), "lost 30 s after it")
        #expect(tracker.tick(at: tracker.nextCheck!) != .none)
        #expect(tracker.nextCheck == nil, "lost: only a report can change anything")
    }

    @Test func firstFixDeadlineIsReportedOncePerConnection() {
        var tracker = GPSDTracker(timing: timing)
        _ = tracker.connected(at: at(0))
        _ = tracker.received(report(mode: .noFix), at: at(1))
        #expect(tracker.tick(at: at(9.9)) == .none)
        #expect(tracker.tick(at: at(10)) == .emit(.noFixYet(seconds: 10, lastMode: .noFix)))
        #expect(tracker.tick(at: at(20)) == .none)
    }

    @Test func reconnectBackOffDoublesUpToTheCapAndResetsOnSuccess() {
        var tracker = GPSDTracker(timing: timing)
        var delays: [Double] = []
        for second in 0..<6 {
            guard
                case .reconnect(.disconnected(_, let retry), let after) =
                    tracker.connectionFailed(reason: "refused", at: at(Double(second)))
            else {
                Issue.record("expected a reconnect")
                return
            }
            #expect(retry == after)
            delays.append(after)
        }
        #expect(delays == [0.5, 1, 2, 4, 8, 8])
        _ = tracker.connected(at: at(10))
        guard case .reconnect(_, let after) = tracker.connectionClosed(reason: "closed", at: at(11)) else {
            Issue.record("expected a reconnect")
            return
        }
        #expect(after == 0.5)
        guard case .reconnect(_, let next) = tracker.connectionFailed(reason: "refused", at: at(12)) else {
            Issue.record("expected a reconnect")
            return
        }
        #expect(next == 0.5)
    }

    @Test func theLastFixSurvivesAReconnectAndKeepsAging() {
        var tracker = GPSDTracker(timing: timing)
        _ = tracker.connected(at: at(0))
        _ = tracker.received(report(mode: .threeD), at: at(1))
        _ = tracker.connectionClosed(reason: "closed", at: at(2))
        #expect(tracker.lastKnownFix?.coordinate.latitude == 52.52)
        guard case .emit(.stale) = tracker.tick(at: at(7)) else {
            Issue.record("expected stale while disconnected")
            return
        }
        // Reconnected with the fix already held: no "no fix yet" for this connection.
        _ = tracker.connected(at: at(8))
        #expect(tracker.tick(at: at(18.5)) == .none)
    }
}

/// gpsd JSON messages that libgps does not unpack, and the POLL freshness rule.
@Suite struct GPSDMessageTests {
    @Test func pollAnswerCarriesTheLatestFix() {
        let line = """
            {"class":"POLL","time":"2026-11-29T12:33:33.609Z","active":1,"tpv":[{"class":"TPV","device":"/dev/pts/1",\
            "mode":3,"time":"2026-11-29T12:33:33.000Z","lat":-37.784791667,"lon":175.314896667,"altHAE":83.5,\
            "altMSL":59.8,"eph":20.9,"speed":0.37}],"sky":[{"class":"SKY","uSat":8}]}
            """
        guard case .poll(let report?, let at?) = GPSDMessage(json: line) else {
            Issue.record("expected a POLL with a TPV")
            return
        }
        #expect(report.fix?.coordinate.latitude == -37.784791667)
        #expect(report.fix?.altitudeMSL == 59.8 && report.fix?.horizontalAccuracy == 20.9)
        #expect(GPSDProvider.currentPolledFix(report, at: at, staleAfter: 5) != nil)
        // A receiver clock far from gpsd's (week rollover, replay) is not trusted as current.
        var wrongClock = report
        wrongClock.time = Date(timeIntervalSince1970: 2_039_000_000)
        #expect(GPSDProvider.currentPolledFix(wrongClock, at: at, staleAfter: 5) == nil)
        // No position yet: nothing.
        guard case .poll(nil, _) = GPSDMessage(json: #"{"class":"POLL","time":"2026-11-29T12:00:00Z","tpv":[]}"#)
        else {
            Issue.record("expected an empty POLL")
            return
        }
    }

    @Test func devicesListTheReceiversPaths() {
        let line = """
            {"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","driver":"u-blox",\
            "activated":"2026-11-29T12:33:32.648Z"},{"class":"DEVICE","path":"/dev/pts/3"}]}
            """
        guard case .devices(let devices) = GPSDMessage(json: line) else {
            Issue.record("expected DEVICES")
            return
        }
        #expect(devices.map(\.path) == ["/dev/ttyACM0", "/dev/pts/3"])
        #expect(devices.first?.driver == "u-blox")
        #expect(GPSDMessage.classOf(line) == "DEVICES")
        guard case .other = GPSDMessage(json: "not json {") else {
            Issue.record("garbage is just 'other'")
            return
        }
    }
}
