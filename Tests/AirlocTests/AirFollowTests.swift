import AirQuality
import Foundation
import Gazetteer
import Geo
import Location
import Platform
import Settings
import TestSupport
import Testing
import Web

@testable import Airloc

/// The one loop under the logger and `now --watch`, in-process on a manual clock: what
/// it records, when it fetches (and fetches again), and what a loss does.
struct AirFollowTests {
    static let gazetteer = Result { try Gazetteer(path: PackagePaths.file("data/gazetteer.bin").path) }
    static let berlin = Coordinate(uncheckedLatitude: 52.52, longitude: 13.405)

    /// Every call the engine made, in order.
    struct Recorder: AirFollowConsumer {
        var calls: [String] = []
        var allowFetch = true

        mutating func arrived(_ fix: Fix, provider: String, received: Date) async { calls.append("arrived") }
        mutating func record(_ fix: Fix, provider: String, received: Date, newSegment: Bool) async {
            calls.append(newSegment ? "record new segment" : "record")
        }
        func mayFetchAir() -> Bool { allowFetch }
        mutating func fetched(_ report: AirReport, reading: AirQualityReading?, fix: Fix, provider: String) async {
            calls.append(reading == nil ? "fetched nothing" : "fetched \(reading!.usAQI)")
        }
        mutating func noPosition(_ reason: String, kind: FollowEvent.Kind) { calls.append("no position \(kind)") }
        mutating func reachable(_ provider: String) { calls.append("reachable") }
    }

    struct Rig {
        let time: ManualTime
        let services: ScriptedServices
        var engine: AirFollow<Recorder>

        init() throws {
            let time = ManualTime(date: UTCTime.parse("2026-12-01T10:10:00Z")!)
            let services = ScriptedServices(time: time)
            services.always("/v1/air-quality", .recorded)
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("airfollow-\(UUID().uuidString)")
            var settings = Settings(directories: XDGDirectories(environment: ["HOME": home.path]))
            settings.airQualityURL = ServiceURL(string: "http://services.test")!
            settings.logTrigger.trackInterval = 30
            let gazetteer = try AirFollowTests.gazetteer.get()
            let frozen = settings
            engine = AirFollow(consumer: Recorder(), settings: settings, time: time) { fix, provider in
                await AirReport.make(
                    fix: fix, provider: provider, accuracy: .full, settings: frozen, gazetteer: gazetteer,
                    request: AirReport.Request(climate: false), transport: services, time: time)
            }
            self.time = time
            self.services = services
        }

        mutating func fix(after seconds: Double = 30) async {
            time.advance(by: .seconds(seconds))
            let fix = Fix(coordinate: berlin, source: .gps, time: time.date, horizontalAccuracy: 5, mode: .threeD)
            await engine.fixArrived(fix, provider: "gpsd", received: time.date)
        }

        var fetches: Int { services.requests(to: "/v1/air-quality").count }
    }

    /// The first fix is recorded before the fetch it brings (the air row names its segment).
    @Test func theFirstFixIsRecordedThenTheAirFetched() async throws {
        var rig = try Rig()
        await rig.fix()
        #expect(rig.engine.consumer.calls == ["arrived", "record new segment", "fetched 41"])
    }

    /// A card refreshes when the data's next value exists, not at every fix or tick.
    @Test func theAirIsFetchedAgainOnlyWhenItsNextValueExists() async throws {
        var rig = try Rig()
        await rig.fix()
        for _ in 0..<20 {
            await rig.fix(after: 1)
            await rig.engine.tick()
        }
        #expect(rig.fetches == 1, "one fetch while the reading is current")
        let next = try #require(rig.engine.trigger.nextAirCheck)
        rig.time.advance(by: .seconds(next.timeIntervalSince(rig.time.date) + 1))
        await rig.engine.tick()
        #expect(rig.fetches == 2, "fetched again once the next value exists")
    }

    /// Nothing is due before a fix (no sensor, a consumer without deadlines): the loop asks
    /// for no tick at all; after the first fetch, only the air's next value is due.
    @Test func theLoopsDeadlineIsWhatIsDueAndNothingElse() async throws {
        var rig = try Rig()
        #expect(rig.engine.nextDeadline(after: rig.time.date) == nil)
        await rig.fix()
        let next = try #require(rig.engine.trigger.nextAirCheck)
        #expect(next > rig.time.date && rig.engine.nextDeadline(after: rig.time.date) == next)
    }

    /// A lost provider opens a new segment at the next point; a receiver without a fix
    /// yet does not.
    @Test func aLossOpensANewSegmentAndNoFixYetDoesNot() async throws {
        var rig = try Rig()
        await rig.fix()
        rig.engine.lost("receiver has no fix", kind: .noFixYet)
        await rig.fix()
        rig.engine.lost("gpsd went away", kind: .lost)
        await rig.fix()
        let records = rig.engine.consumer.calls.filter { $0.hasPrefix("record") || $0.hasPrefix("no position") }
        #expect(
            records == [
                "record new segment", "no position noFixYet", "record", "no position lost", "record new segment",
            ], "\(rig.engine.consumer.calls)")
    }

    /// A consumer that may not fetch yet (the logger before its clock is judged) postpones
    /// the fetch without a failure; the loop looks again a second later (not at once, in a
    /// busy loop) and it runs at the first tick it may.
    @Test func aPostponedFetchRunsWhenTheConsumerMay() async throws {
        var rig = try Rig()
        rig.engine.consumer.allowFetch = false
        await rig.fix()
        await rig.engine.tick()
        #expect(rig.fetches == 0 && !rig.engine.trigger.airIsFailing)
        #expect(rig.engine.nextDeadline(after: rig.time.date) == rig.time.date.addingTimeInterval(1))
        rig.engine.consumer.allowFetch = true
        rig.time.advance(by: .seconds(1))
        await rig.engine.tick()
        #expect(rig.fetches == 1 && rig.engine.consumer.calls.last == "fetched 41")
    }
}
