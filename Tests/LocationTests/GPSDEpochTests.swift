import Foundation
import Geo
import Testing

@testable import Location

/// gpsd's several TPVs per epoch (one per sentence until it learns the cycle) become one
/// report with every field any of them carried.
@Suite struct GPSDEpochTests {
    let t0 = Date(timeIntervalSince1970: 1_795_000_000)

    func tpv(
        at second: Double, mode: FixMode = .threeD, eph: Double? = nil, track: Double? = nil,
        altitude: Double? = nil
    ) -> GPSDReport {
        GPSDReport(
            hasPosition: true, hasMode: true, mode: mode, latitude: 52.52, longitude: 13.405, altitudeHAE: nil,
            altitudeMSL: altitude, eph: eph, epx: nil, epy: nil, speed: nil, track: track,
            time: t0.addingTimeInterval(second), satellitesUsed: nil)
    }

    @Test func theSentencesOfOneEpochBecomeOneFixWithEveryField() throws {
        var epoch = GPSDEpoch()
        #expect(epoch.received(tpv(at: 0, mode: .twoD, altitude: 35)).isEmpty, "held until the epoch is whole")
        #expect(epoch.received(tpv(at: 0, track: 87)).isEmpty)
        #expect(epoch.received(tpv(at: 0, eph: 12)).isEmpty)
        let passed = epoch.received(tpv(at: 1, mode: .threeD))
        #expect(passed.count == 1)
        let fix = try #require(passed.first?.fix)
        #expect(fix.mode == .threeD, "the latest mode of the epoch")
        #expect(fix.altitudeMSL == 35 && fix.track == 87 && fix.horizontalAccuracy == 12)
        #expect(fix.time == t0)
    }

    @Test func aLateSentenceOfAnEpochAlreadyPassedOnIsDropped() {
        var epoch = GPSDEpoch()
        _ = epoch.received(tpv(at: 0))
        #expect(epoch.received(tpv(at: 1)).count == 1)
        #expect(epoch.flush().count == 1)
        #expect(epoch.received(tpv(at: 1, eph: 5)).isEmpty, "epoch 1 was passed on by the flush")
        #expect(epoch.flush().isEmpty)
    }

    @Test func aPolledEpochIsNotRepeatedByItsOwnSentences() {
        var epoch = GPSDEpoch()
        _ = epoch.received(tpv(at: 4))
        epoch.passedOn(time: t0.addingTimeInterval(4))
        #expect(epoch.received(tpv(at: 4, eph: 9)).isEmpty)
        #expect(epoch.flush().isEmpty)
    }

    @Test func satellitesFromSkyFillFixesWithoutThem() throws {
        var epoch = GPSDEpoch()
        epoch.satellites(used: 9)
        _ = epoch.received(tpv(at: 0))
        let report = try #require(epoch.flush().first)
        #expect(report.fix?.satellitesUsed == 9)
    }

    @Test func reportsWithoutATimePassStraightThrough() {
        var epoch = GPSDEpoch()
        _ = epoch.received(tpv(at: 0))
        var timeless = tpv(at: 0, mode: .noFix)
        timeless.time = nil
        let passed = epoch.received(timeless)
        #expect(passed.count == 2 && passed[1].mode == .noFix, "the gathered epoch first, then the time-less one")
    }
}
