import Foundation
import Geo
import Testing

@testable import Airloc

/// The field logger's rules, event by event with given times: when a point is recorded,
/// when a segment starts, when the air is fetched and how failures are retried.
@Suite struct LogTriggerTests {
    let start = Date(timeIntervalSince1970: 1_795_000_000)
    let berlin = Coordinate(uncheckedLatitude: 52.52, longitude: 13.405)

    func fix(_ coordinate: Coordinate, error: Double? = 5) -> Fix {
        Fix(coordinate: coordinate, source: .gps, horizontalAccuracy: error, mode: .threeD)
    }

    /// `metres` north of Berlin.
    func north(_ metres: Double) -> Coordinate {
        Coordinate(uncheckedLatitude: 52.52 + metres / 111_195, longitude: 13.405)
    }

    @Test func theFirstFixRecordsAPointOpensASegmentAndFetchesTheAir() {
        var trigger = LogTrigger()
        #expect(trigger.fix(fix(berlin), at: start) == [.recordPoint(newSegment: true), .fetchAir(berlin)])
    }

    @Test func aStandingReceiverIsRecordedEveryIntervalAMovingOneEveryDistance() {
        var trigger = LogTrigger()
        _ = trigger.fix(fix(berlin), at: start)
        var recorded: [Int] = []
        for second in 1...12
        where trigger.fix(fix(berlin), at: start + Double(second)).contains(.recordPoint(newSegment: false)) {
            recorded.append(second)
        }
        #expect(recorded == [5, 10], "every 5 s while standing")
        // 11 m in one second: recorded at once, before the interval is up.
        #expect(trigger.fix(fix(north(11)), at: start + 13) == [.recordPoint(newSegment: false)])
        #expect(trigger.fix(fix(north(15)), at: start + 14) == [], "4 m further: not yet")
    }

    @Test func aFixWorseThanMaxErrorIsSkipped() {
        var trigger = LogTrigger()
        #expect(trigger.fix(fix(berlin, error: 500), at: start).isEmpty)
        #expect(trigger.fix(fix(berlin, error: 20), at: start + 1).first == .recordPoint(newSegment: true))
    }

    @Test func aGapOrARestartOpensANewSegment() {
        var trigger = LogTrigger()
        _ = trigger.fix(fix(berlin), at: start)
        #expect(trigger.fix(fix(berlin), at: start + 61).first == .recordPoint(newSegment: true), "61 s without a fix")
        #expect(trigger.fix(fix(berlin), at: start + 66).first == .recordPoint(newSegment: false))
        trigger.restart()
        #expect(trigger.fix(fix(berlin), at: start + 67).first == .recordPoint(newSegment: true))
    }

    @Test func theAirIsAskedAgainOnlyWhenItsNextValueExistsOrTheDeviceMovedFar() {
        var trigger = LogTrigger()
        _ = trigger.fix(fix(berlin), at: start)
        #expect(trigger.fix(fix(berlin), at: start + 1).allSatisfy { $0 != .fetchAir(berlin) }, "one fetch at a time")
        let nextHour = start + 1800
        trigger.airFetched(nextValueAt: nextHour, at: start + 2)
        #expect(trigger.nextAirCheck == nextHour)
        #expect(trigger.tick(at: nextHour - 1).isEmpty, "never before the next value exists")
        #expect(
            trigger.fix(fix(north(1500)), at: start + 100).contains { if case .fetchAir = $0 { true } else { false } }
                == false)
        let far = north(2100)
        #expect(trigger.fix(fix(far), at: start + 200).contains(.fetchAir(far)), "2.1 km from the last reading")
        trigger.airFetched(nextValueAt: nextHour, at: start + 201)
        #expect(trigger.tick(at: nextHour) == [.fetchAir(far)])
    }

    @Test func failuresAreRetriedWithDoublingPausesCappedAtAMinuteAndABackoffIsHonoured() {
        var trigger = LogTrigger()
        _ = trigger.fix(fix(berlin), at: start)
        var now = start
        var pauses: [Double] = []
        for _ in 0..<7 {
            trigger.airFailed(at: now)
            let retry = trigger.nextAirCheck!
            pauses.append(retry.timeIntervalSince(now))
            #expect(trigger.tick(at: retry - 0.5).isEmpty)
            #expect(trigger.tick(at: retry) == [.fetchAir(berlin)])
            now = retry
        }
        #expect(pauses == [5, 10, 20, 40, 60, 60, 60])
        #expect(trigger.airIsFailing)
        // A 429 asked for an hour: no sooner, though the pause would be a minute.
        trigger.airFailed(retryNotBefore: now + 3600, at: now)
        #expect(trigger.nextAirCheck == now + 3600)
        #expect(trigger.tick(at: now + 3599).isEmpty)
        #expect(trigger.tick(at: now + 3600) == [.fetchAir(berlin)])
        trigger.airFetched(nextValueAt: now + 7200, at: now + 3601)
        #expect(!trigger.airIsFailing)
    }
}
