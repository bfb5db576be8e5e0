import AirQuality
import Airloc
import FleetWire
import Foundation
import Gazetteer
import Geo
import Logbook
import Platform
import Settings
import Web

/// What `airloc serve` shows of this device: the logbook, opened read-only as `log status`
/// opens it, and the air cache the logger fills; each position as `[serve] position`
/// allows.
///
/// Contract: it never writes, never senses and never fetches: the report of ``now()`` is
/// made from the logbook's latest track point, the cached air of that point and the latest
/// measured reading, and a service it would need is answered "not fetched by serve". A
/// logbook that does not exist yet is looked for again at each request (nil until then).
/// The report and the status are made again only when the logbook's data version changed
/// (a commit of the logger's became readable); the status also once a second.
public final class DeviceSource: Sendable {
    /// The settings it serves by.
    public let settings: Settings
    /// The place data, for the card's place and the map's names.
    public let gazetteer: Gazetteer
    /// Writes to the logbook's files, as they happen.
    public let watch: FileChangeWatch?
    /// The open logbook, and the report and status of the latest change seen.
    private struct Kept: Sendable {
        var opened: Logbook?
        var report: (version: Int64, value: AirReport?)?
        var status: (version: Int64, made: Date, value: LogStatusJSON?)?
    }
    private let kept = Lock(Kept())

    /// A source over `settings.logDatabase`.
    public init(settings: Settings, gazetteer: Gazetteer, watching: Bool = true) {
        self.settings = settings
        self.gazetteer = gazetteer
        let file = settings.logDatabase
        watch =
            watching
            ? FileChangeWatch(directory: file.deletingLastPathComponent(), prefix: file.lastPathComponent) : nil
    }

    /// The logbook, or nil while it does not exist or cannot be read.
    public var logbook: Logbook? {
        kept.withLock { kept in
            if let opened = kept.opened { return opened }
            guard FileManager.default.fileExists(atPath: settings.logDatabase.path) else { return nil }
            kept.opened = try? Logbook(url: settings.logDatabase, readOnly: true)
            return kept.opened
        }
    }

    /// The rows after `seen`, nil without a logbook.
    func newRows(after seen: [RowKind: Int64]) -> [Logbook.OutboxRow]? {
        try? logbook?.rows(after: seen, limit: 200)
    }

    /// What `[serve] position` lets it serve.
    public var position: ServedPosition { ServedPosition(settings.serve.position) }

    /// The report of the logbook's latest fix, air and reading, or nil without a track point.
    /// It reads the logbook on the calling thread (a connection's, never Swift's pool).
    public func now(at date: Date = Date()) -> AirReport? {
        let version = self.version
        let found = kept.withLock { kept -> AirReport?? in
            guard let report = kept.report, report.version == version, version >= 0 else { return nil }
            return .some(report.value)
        }
        if let found { return found.map { aged($0, at: date) } }
        let made = makeReport(at: date)
        kept.withLock { $0.report = (version, made) }
        return made
    }

    /// The logbook's data version (``Logbook/dataVersion()``): what is made from the
    /// logbook is made again when it differs. -1 without a logbook (nothing is kept then).
    var version: Int64 { (try? logbook?.dataVersion()) ?? -1 }

    /// The report with its measured reading's age as of `date`.
    private func aged(_ report: AirReport, at date: Date) -> AirReport {
        var copy = report
        if case .reading(var reading)? = copy.measured {
            reading.ageSeconds += max(0, date.timeIntervalSince(copy.generatedAt))
            copy.measured = .reading(reading)
        }
        for index in copy.climateSensors.indices {
            copy.climateSensors[index].ageSeconds += max(0, date.timeIntervalSince(copy.generatedAt))
        }
        copy.generatedAt = date
        return copy
    }

    private func makeReport(at date: Date) -> AirReport? {
        guard let logbook, var point = try? logbook.latestTrackPoint() else { return nil }
        // Coarse: the report is made from the grid point, so that nothing in it (a place's
        // distance and bearing) is finer than the grid.
        if let grid = position.trackGrid { point = point.coarse(grid: grid) }
        var fix = Fix(coordinate: point.coordinate, source: point.provider == "manual" ? .manual : .gps)
        fix.horizontalAccuracy = point.accuracy
        fix.altitudeMSL = point.altitude
        fix.speed = point.speed
        fix.track = point.course
        fix.mode = point.mode.flatMap(FixMode.init(rawValue:))
        fix.satellitesUsed = point.satellites
        fix.time = point.time
        fix.receivedAt = point.time
        if !position.showsMotion { (fix.speed, fix.track, fix.altitudeMSL) = (nil, nil, nil) }
        let (settings, gazetteer, provider, fixed) = (self.settings, self.gazetteer, point.provider, fix)
        // The pipeline is async, and only reads the air cache: it runs on Swift's pool while
        // this thread waits; the logbook reads around it stay here.
        var report = AwaitFromThread.result {
            await AirReport.make(
                fix: fixed, provider: provider, accuracy: .full, settings: settings, gazetteer: gazetteer,
                request: AirReport.Request(scale: settings.scale, climate: false), transport: CacheOnly(),
                time: FixedTime(date: date))
        }
        if case .failure = report.air, let logged = logged(logbook, at: date) {
            // No cached answer (the logger's cache elsewhere, or expired): the logbook's own hour.
            report.data = AirData(air: .success(logged.reading), airCachedAge: logged.age)
            report.warnings.removeAll { $0.contains("not fetched by airloc serve") }
        }
        report.measured = measured(logbook, at: date)
        report.climateSensors = climate(logbook, at: date)
        return report
    }

    /// Each `[sensor.NAME]` sensor's latest logged reading (none for one never logged).
    func climate(_ logbook: Logbook, at date: Date) -> [MeasuredClimate] {
        settings.climateSensors.compactMap { section in
            guard let model = section.model, case .success(let reading) = section.reading,
                let row = try? logbook.latestSensorRecord(named: section.name),
                let sample = row.climate(source: reading.source)
            else { return nil }
            return MeasuredClimate(
                name: section.name, model: model, place: reading.place, outcome: .success(sample),
                ageSeconds: max(0, date.timeIntervalSince(row.time)), fromLogbook: true)
        }
    }

    /// The logbook's latest model hour, while it is within `[cache] max-stale`.
    private func logged(_ logbook: Logbook, at date: Date) -> (reading: AirQualityReading, age: TimeInterval)? {
        guard let record = try? logbook.latestAirRecord(), let aqi = record.values.usAQI,
            date.timeIntervalSince(record.hour) < settings.maxStale + 3600
        else { return nil }
        var concentrations: [Pollutant: Double] = [:]
        for (name, value) in record.values.pollutants {
            if let pollutant = Pollutant(rawValue: name) { concentrations[pollutant] = value }
        }
        var reading = AirQualityReading(
            usAQI: aqi, concentrations: concentrations, time: UTCTime.iso8601Seconds(record.hour), timezone: "UTC",
            gridCoordinate: record.sentCoordinate)
        reading.europeanAQI = record.values.europeanAQI
        reading.dataTime = record.hour
        return (reading, max(0, date.timeIntervalSince(record.loggedAt)))
    }

    private func measured(_ logbook: Logbook, at date: Date) -> MeasuredAir? {
        guard let latest = try? logbook.latestSensorRecord() else { return nil }
        let nowcast = (try? logbook.hourlyPM2_5(before: date)).flatMap(NowCast.pm2_5AQI)
        guard let sample = latest.sample(device: settings.sensor.device ?? "") else { return nil }
        return .reading(
            MeasuredReading(
                sample: sample, ageSeconds: max(0, date.timeIntervalSince(latest.time)), fromLogbook: true,
                nowcastUSAQI: nowcast, window: settings.sensor.freshness))
    }

    /// `log status --json`'s document, or nil without a logbook.
    ///
    /// Made again when the logbook changed, or when the one made is a second older than
    /// `date` (what it says beside the logbook, the logger's PID and its last error
    /// note, and its ages, may have moved on): a scraper or a page polling hard costs a
    /// lookup, not the counts, the lock probe and the note each time.
    public func status(at date: Date = Date()) -> LogStatusJSON? {
        guard let logbook else { return nil }
        let version = self.version
        let found = kept.withLock { kept -> LogStatusJSON?? in
            guard let status = kept.status, status.version == version, version >= 0,
                abs(date.timeIntervalSince(status.made)) < 1
            else { return nil }
            return .some(status.value)
        }
        if let found { return found }
        let made = try? LogStatusJSON(
            logbook, now: date, uploads: settings.uploads.map(LogStatusJSON.UploadSection.init))
        kept.withLock { $0.status = (version, date, made) }
        return made
    }

    /// The transport of a source that never fetches: every request fails at once, so the
    /// pipeline answers from the cache the logger keeps.
    struct CacheOnly: HTTPTransport {
        func get(_ url: URL, service: String, timeout: Duration) async throws(WebError) -> (status: Int, body: Data) {
            throw .unreachable(service: service, reason: "not fetched by airloc serve, which reads the logger's cache")
        }
    }

    /// A clock stopped at one moment (the report's).
    struct FixedTime: TimeSource {
        var date: Date
        var now: ContinuousClock.Instant { ContinuousClock.now }
        func sleep(for duration: Duration) async throws {}
    }
}
