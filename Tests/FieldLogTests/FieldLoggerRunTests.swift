import Airloc
import FieldLog
import Foundation
import Geo
import Logbook
import Platform
import Settings
import TestSupport
import Testing
import Web

/// The logger's own loop (what `log run` runs), in-process on a clock that moves only when
/// the test says: asleep until its next deadline (no tick between), the next hour's air
/// when the hour has come, and at the stop the event in hand finished and the loop ended.
@Suite struct FieldLoggerRunTests {
    @Test func theLoopSleepsUntilTheNextHourAndFetchesItWhenItComes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let start = ISO8601DateFormatter().date(from: "2026-11-30T10:10:00Z")!
        let time = ManualTime(date: start, sleepers: .waitForAdvance)
        let services = ScriptedServices(time: time)
        var settings = Settings(directories: XDGDirectories(environment: ["HOME": directory.url.path]))
        settings.airQualityURL = ServiceURL(string: "http://services.test")!
        settings.archiveURL = ServiceURL(string: "http://services.test")!
        let logbook = try Logbook(url: settings.logDatabase)
        let logger = FieldLogger(
            logbook: logbook, settings: settings, gazetteer: try FieldLoggerTests.gazetteer.get(), accuracy: .full,
            transport: services, time: time, bootID: "test-boot", bootSeconds: { 1000 + time.elapsed.seconds })
        let (events, post) = AsyncStream<FollowEvent>.makeStream()
        let context = ServiceContext(name: .logger, time: time) { _ in }
        let run = Task {
            var running = logger
            await running.run(LocationSession.Following(accuracy: .full, events: events), until: context)
            return running.written
        }
        // Three 3D fixes with their time: the clock is judged, and the air may be fetched.
        for second in 0..<3 {
            let at = start.addingTimeInterval(Double(second) / 10)
            post.yield(
                FollowEvent(
                    kind: .fix, provider: "gpsd",
                    fix: Fix(
                        coordinate: FieldLoggerTests.berlin, source: .gps, time: at, horizontalAccuracy: 5,
                        mode: .threeD),
                    time: at))
        }
        try await Poll.until("the first point and the air") {
            (try? logbook.status(now: time.date)).map { $0.trackRows == 1 && $0.airRows == 1 } == true
        }
        // Between two deadlines the loop sleeps on its one timer, and no shorter: until the
        // next hour's value (11:00), the only thing due without a fix.
        // On a busy machine the loop may still be handling the last fixes when it first
        // sleeps (an alarm it then sets again): its sleep once they are handled is what counts.
        await time.waitForSleepers(1)
        try await Poll.until("the loop asleep until the next hour") { time.nextWake == .seconds(3000) }
        #expect(time.nextWake == .seconds(3000), "\(String(describing: time.nextWake))")
        let fetched = services.requests(to: "/v1/air-quality").count
        time.advance(by: .seconds(2999))
        await time.waitForSleepers(1)
        #expect(services.requests(to: "/v1/air-quality").count == fetched, "a second before it: nothing new is due")
        // The hour's value has come: the tick at its deadline fetches it.
        time.advance(by: .seconds(1))
        try await Poll.until("the next hour's air") { (try? logbook.status(now: time.date).airRows) == 2 }
        context.requestStop()
        let written = await run.value
        #expect(written.track == 1 && written.air == 2)
    }
}
