import Airloc
import FieldLog
import Foundation
import Gazetteer
import Geo
import Platform
import Settings
import TestSupport
import Testing
import Web

@testable import Logbook

/// The logger in-process: a real logbook file, the services scripted, time on a manual
/// clock — hours of logging in milliseconds, the same on a busy machine as on an idle one.
@Suite struct FieldLoggerTests {
    static let gazetteer = Result { try Gazetteer(path: PackagePaths.file("data/gazetteer.bin").path) }
    static let berlin = Coordinate(uncheckedLatitude: 52.52, longitude: 13.405)

    struct Rig {
        let directory: TemporaryDirectory
        let time: ManualTime
        let services: ScriptedServices
        var logger: FieldLogger
        let notices: Notices

        init(start: Date, boot: (@Sendable (ManualTime) -> Double?)? = nil) throws {
            directory = try TemporaryDirectory()
            time = ManualTime(date: start)
            services = ScriptedServices(time: time)
            var settings = Settings(directories: XDGDirectories(environment: ["HOME": directory.url.path]))
            settings.airQualityURL = ServiceURL(string: "http://services.test")!
            settings.archiveURL = ServiceURL(string: "http://services.test")!
            settings.logTrigger.trackInterval = 30
            let logbook = try Logbook(url: settings.logDatabase)
            let notices = Notices()
            self.notices = notices
            let time = self.time
            logger = FieldLogger(
                logbook: logbook, settings: settings, gazetteer: try FieldLoggerTests.gazetteer.get(), accuracy: .full,
                transport: services, time: time, bootID: "test-boot",
                bootSeconds: { boot?(time) ?? time.elapsed.seconds + 1000 }, notify: { notices.append($0) })
        }

        /// `steps` fixes, `every` seconds apart, with a tick after each.
        mutating func log(steps: Int, every seconds: Double = 30, gpsTime: ((Date) -> Date?)? = nil) async {
            for _ in 0..<steps {
                time.advance(by: .seconds(seconds))
                let now = time.date
                let fix = Fix(
                    coordinate: FieldLoggerTests.berlin, source: .gps, time: gpsTime?(now) ?? now,
                    horizontalAccuracy: 5, mode: .threeD)
                await logger.fixArrived(fix, provider: "gpsd", received: now)
                await logger.tick()
            }
        }
    }

    final class Notices: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [LoggerNotice] = []
        func append(_ notice: LoggerNotice) { lock.withLock { list.append(notice) } }
        var all: [LoggerNotice] { lock.withLock { list } }
    }

    static func air(_ logbook: Logbook) throws -> [AirRecord] { Array(try logbook.airRecords()) }

    /// 10:10 start; the service fails from 10:15 to 12:25; 11:00 and 12:00 become pending;
    /// at recovery 12:00 is settled live and 11:00 back-filled in one history request with
    /// its own hour's value.
    @Test func anOutageSpanningAnHourIsBackFilledHourByHour() async throws {
        let start = ISO8601DateFormatter().date(from: "2026-11-30T10:10:00Z")!
        var rig = try Rig(start: start)
        defer { rig.directory.remove() }
        await rig.log(steps: 10)  // to 10:15, service fine
        rig.services.always("/v1/air-quality", .status(503, reason: "The service is overloaded"))
        await rig.log(steps: 260)  // to 12:25
        let during = try Self.air(rig.logger.logbook)
        #expect(during.map(\.source) == [.live, .pending, .pending], "\(during.map { ($0.hour, $0.source) })")
        #expect(rig.logger.trigger.airIsFailing)
        #expect(rig.notices.all.allSatisfy { !$0.message.contains("52.52") }, "no position in the journal")

        rig.services.always("/v1/air-quality", .recorded)
        let before = rig.services.requests.count
        await rig.log(steps: 4)
        let rows = try Self.air(rig.logger.logbook)
        let sources = Dictionary(
            uniqueKeysWithValues: rows.map { (Int($0.hour.timeIntervalSince1970 / 3600) % 24, $0) })
        #expect(sources[10]?.source == .live && sources[12]?.source == .live, "\(rows.map { ($0.hour, $0.source) })")
        #expect(sources[11]?.source == .backfill && sources[11]?.values.usAQI == 100 + 11, "its own hour's value")
        let history = rig.services.requests.dropFirst(before).filter { $0.query["hourly"] != nil }
        #expect(history.count == 1 && history.first?.query["start_hour"] == "2026-11-30T11:00")
        #expect(history.first?.query["end_hour"] == "2026-11-30T11:00")
        #expect(try rig.logger.logbook.status(now: rig.time.date).pending == 0)
        // The track went on through the outage: a point every 30 s.
        #expect(try rig.logger.logbook.status(now: rig.time.date).trackRows == 274)
    }

    /// A week without the service in one place: 168 pending hours, back-filled in one request.
    /// (After this release's date: GPS time earlier than that is never believed.)
    @Test func aWeekOfflineIsOneRequest() async throws {
        let start = ISO8601DateFormatter().date(from: "2026-12-01T00:00:00Z")!
        var rig = try Rig(start: start)
        defer { rig.directory.remove() }
        rig.services.always(
            "/v1/air-quality", .failure(.unreachable(service: "Open-Meteo air quality", reason: "network down")))
        await rig.log(steps: 168 * 6 - 1, every: 600)  // 00:10 to 167:50
        #expect(try rig.logger.logbook.status(now: rig.time.date).pending == 168)
        rig.services.always("/v1/air-quality", .recorded)
        let before = rig.services.requests.count
        await rig.log(steps: 1, every: 60)
        let history = rig.services.requests.dropFirst(before).filter { $0.query["hourly"] != nil }
        #expect(history.count == 1)
        let status = try rig.logger.logbook.status(now: rig.time.date)
        #expect(status.pending == 0 && status.unavailable == 0)
    }

    /// The Pi booted with its clock at 2000-01-01; GPS says 2026. After three 3D fixes GPS
    /// wins, and the first points are re-stamped: no row keeps the contradicted time.
    @Test func aWrongClockIsCorrectedByGPSAndEarlierRowsRestamped() async throws {
        let wrong = Date(timeIntervalSince1970: 946_684_800)
        let truth = ISO8601DateFormatter().date(from: "2026-11-30T10:00:00Z")!
        var rig = try Rig(start: wrong)
        defer { rig.directory.remove() }
        rig.services.always("/v1/air-quality", .status(503))
        await rig.log(steps: 6) { now in truth.addingTimeInterval(now.timeIntervalSince(wrong)) }
        let points = Array(try rig.logger.logbook.trackPoints())
        #expect(points.count == 6)
        #expect(points.allSatisfy { abs($0.time.timeIntervalSince(truth)) < 600 }, "\(points.map(\.time))")
        #expect(points.allSatisfy { $0.timeSource == "gps" })
        #expect(points.first?.time == truth.addingTimeInterval(30) && points.map(\.time) == points.map(\.time).sorted())
        #expect(rig.notices.all.contains { $0.message.contains("system clock is off") })
        // The air waited for the clock to be judged: its hours are in GPS time too.
        #expect(try Self.air(rig.logger.logbook).allSatisfy { $0.hour > truth.addingTimeInterval(-3600) })
    }

    /// A full disk: the writes fail, the logger says so and keeps running; when space
    /// returns it resumes.
    @Test func aFullDiskIsReportedAndSurvived() async throws {
        let start = ISO8601DateFormatter().date(from: "2026-11-30T10:10:00Z")!
        var rig = try Rig(start: start)
        defer { rig.directory.remove() }
        await rig.log(steps: 3)
        let logbook = rig.logger.logbook
        let pages = Int(try logbook.database.integer("PRAGMA page_count") ?? 0)
        try logbook.limitSize(pages: pages)
        await rig.log(steps: 400)
        let full = try logbook.status(now: rig.time.date)
        #expect(
            full.lastError?.contains("disk is full") == true
                || rig.notices.all.contains { $0.message.contains("disk is full") })
        try logbook.limitSize(pages: 1_000_000)
        let stuck = full.trackRows
        await rig.log(steps: 3)
        #expect(try logbook.status(now: rig.time.date).trackRows == stuck + 3, "resumed when space returned")
        #expect(try logbook.integrityCheck() == ["ok"])
        // 400 failed writes in a row are one line in the journal, and their end another.
        let failures = rig.notices.all.filter { $0.message.contains("writing a track point failed") }
        #expect(failures.count == 1, "\(failures.count) lines for one full disk")
        let recovered = rig.notices.all.filter { $0.message.hasPrefix("writing to the logbook works again") }
        #expect(recovered.count == 1, "\(rig.notices.all.suffix(3))")
        let status = try logbook.status(now: rig.time.date)
        #expect(status.lastError == nil && status.lastErrorAt == nil, "no error after recovery: \(status)")
    }
}
