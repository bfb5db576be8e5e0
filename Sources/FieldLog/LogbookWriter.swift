import AirQuality
import Airloc
import Foundation
import Gazetteer
import Geo
import Location
import Logbook
import Platform
import Readings
import Sensors
import Settings
import Web

/// What the field logger does with what ``AirFollow`` hands it: rows in the logbook,
/// stamped by ``GPSClock``, and what it says about troubles (``FieldLogger`` has the
/// contract).
public struct LogbookWriter: AirFollowConsumer, Sendable {
    /// Where it writes.
    public let logbook: Logbook
    /// The settings it runs with.
    public var settings: Settings
    /// The services (the back-fill's history requests).
    public var transport: any HTTPTransport
    /// The clock.
    public var time: any TimeSource
    /// This boot's id (re-stamping).
    public var bootID: String?
    /// The monotonic clock (``BootClock/seconds``); injected for tests.
    public var bootSeconds: @Sendable () -> Double?
    /// Where it says what happens.
    public var notify: @Sendable (LoggerNotice) -> Void

    /// What it makes of the clock.
    public private(set) var clock = GPSClock()
    /// When the fix being handled was taken up (its reception may be earlier).
    private var processing = Date.distantPast
    private var segment: Int64?
    private var lastAirHour: Date?
    private var lastPrune: Date?
    private var troubles = LoggerTroubles()
    /// gpsd was unreachable, and has answered again (a fix is still to come).
    private var providerBack = false
    /// The times of the rows logged so far are final (the clock judged, nothing more to
    /// re-stamp); the rows of other boots are settled at the first fix.
    private var timesSettled = false
    private var otherBootsSettled = false
    /// Rows written by this run.
    public private(set) var written = FieldLogger.Written()

    init(
        logbook: Logbook, settings: Settings, transport: any HTTPTransport, time: any TimeSource, bootID: String?,
        bootSeconds: @escaping @Sendable () -> Double?, notify: @escaping @Sendable (LoggerNotice) -> Void
    ) {
        self.logbook = logbook
        self.settings = settings
        self.transport = transport
        self.time = time
        self.bootID = bootID
        self.bootSeconds = bootSeconds
        self.notify = notify
    }

    // MARK: events

    /// A fix (already limited to the allowed accuracy): the clock is judged by it.
    public mutating func arrived(_ fix: Fix, provider: String, received: Date) async {
        let processing = time.date
        self.processing = processing
        let verdict = clock.observe(fix, system: received)
        if case .disbelieved(let why) = verdict { notify(.init(level: .warning, message: why)) }
        if case .corrected(let offset) = verdict {
            notify(
                .init(level: .warning, message: String(format: "system clock is off by %.1f s; using GPS time", offset))
            )
            if let bootID, let boot = bootSeconds() {
                let failure = Self.attempt { () throws(LogbookError) in
                    let changed = try logbook.restamp(
                        bootID: bootID, trustedTime: processing.addingTimeInterval(offset), atBootSeconds: boot)
                    if changed > 0 {
                        notify(
                            .init(
                                level: .info,
                                message: "re-stamped \(count: changed, "track point") logged before GPS time"))
                    }
                }
                storage("re-stamping", failure)
            }
        }
        settleTimes()
        if troubles.current(.position) != nil {
            providerBack = false
            apply(troubles.ended(.position, saying: "position back (\(provider))"))
        }
    }

    /// Releases the rows a re-stamp can no longer reach to the uploads: at the first fix
    /// those of other boots, and once the clock is judged (GPS time trusted, or ten fixes
    /// without it, or no GPS at all) every row, after the re-stamp if there was one.
    private mutating func settleTimes() {
        // Tried again at the next fix when it fails: until then the rows are held back.
        if !timesSettled, clock.isJudged {
            let failure = Self.attempt { () throws(LogbookError) in _ = try logbook.settleTimes() }
            if let failure {
                storage("settling times", failure)
            } else {
                (timesSettled, otherBootsSettled) = (true, true)
            }
        } else if !otherBootsSettled, let bootID {
            let failure = Self.attempt { () throws(LogbookError) in _ = try logbook.settleTimes(exceptBoot: bootID) }
            if let failure { storage("settling times", failure) } else { otherBootsSettled = true }
        }
    }

    /// Old rows are looked at hourly (with `[log] keep`), the first time at once.
    public func nextTick(after now: Date) -> Date? {
        guard settings.logKeep != nil else { return nil }
        return lastPrune.map { $0.addingTimeInterval(3600) } ?? now
    }

    /// Time passed: old rows may be due for pruning.
    public mutating func ticked(at now: Date) async {
        if let keep = settings.logKeep, lastPrune.map({ now.timeIntervalSince($0) >= 3600 }) ?? true {
            lastPrune = now
            let failure = Self.attempt { () throws(LogbookError) in
                let removed = try logbook.prune(before: now.addingTimeInterval(-keep))
                if removed.total > 0 {
                    notify(
                        .init(
                            level: .info,
                            message:
                                "pruned \(removed.track) track, \(removed.air) air and \(removed.sensor) sensor rows"))
                }
            }
            storage("pruning", failure)
        }
    }

    /// No position: the followed provider went away (gpsd stopped, the receiver
    /// unplugged) or was never there (gpsd unreachable from the start). The next point
    /// opens a new segment; the trouble is said once, with what can help. (A receiver
    /// without a fix yet is no trouble of the logger's.)
    public mutating func noPosition(_ reason: String, kind: FollowEvent.Kind) {
        guard kind != .noFixYet else { return }
        segment = nil
        providerBack = false
        apply(
            troubles.happened(
                .position, .init(level: .warning, message: "no position: \(reason); waiting", remedy: .checkGPSD)))
    }

    /// The provider answers again after it could not be reached.
    public mutating func reachable(_ provider: String) {
        guard troubles.current(.position) != nil, !providerBack else { return }
        providerBack = true
        notify(.init(level: .info, message: "\(provider) is reachable again; waiting for a fix"))
    }

    // MARK: writing

    /// Writes the track point (and a segment when it opens one).
    public mutating func record(_ fix: Fix, provider: String, received: Date, newSegment: Bool) async {
        let stamp = clock.stamp(received)
        // The monotonic time of reception: now's, less what processing took since.
        // Kept only while a re-stamp may still need it: a row without it is final.
        let boot =
            timesSettled || bootID == nil
            ? nil : bootSeconds().map { $0 - max(0, processing.timeIntervalSince(received)) }
        let failure = Self.attempt { () throws(LogbookError) in
            if newSegment || segment == nil {
                segment = try logbook.startSegment(
                    at: stamp.time, bootID: bootID, reason: segment == nil && written.track == 0 ? "start" : "gap")
            }
            try logbook.append(
                TrackPoint(time: stamp.time, timeSource: stamp.source, fix: fix, provider: provider, segment: segment!),
                bootSeconds: boot)
            written.track += 1
        }
        storage("writing a track point", failure)
    }

    /// A reading of the particulate sensor ended: a row stamped as track points are, with
    /// the fix in force; a failure is a trouble said once, and the next reading tries again.
    public mutating func measured(_ result: Result<SensorSample, SensorFailure>, fix: Fix?, provider: String?) async {
        switch result {
        case .success(let measured):
            let now = time.date
            let stamp = clock.stamp(now)
            let humidity = BorrowedHumidity.logged(settings, logbook: logbook, now: now)
            let sample = BorrowedHumidity.apply(humidity, to: measured, settings: settings)
            let failure = Self.attempt { () throws(LogbookError) in
                try logbook.append(
                    SensorRecord(
                        sample, time: stamp.time, timeSource: stamp.source, coordinate: fix?.coordinate,
                        segment: segment))
                written.sensor += 1
            }
            storage("writing a sensor reading", failure)
            apply(troubles.ended(.sensor, saying: "the sensor gives readings again"))
        case .failure(let failure):
            apply(
                troubles.happened(
                    .sensor,
                    .init(
                        level: .warning, message: "no sensor reading: \(failure); will try again", remedy: .checkSensor),
                    cause: failure.absence))
        }
    }

    /// A `[sensor.NAME]` reading ended: written as that sensor's row, or its trouble said
    /// (its own: another sensor's failing or recovering says nothing of this one).
    public mutating func measured(
        _ name: String, _ result: Result<ClimateSample, SensorFailure>, fix: Fix?, provider: String?
    ) async {
        switch result {
        case .success(let sample):
            let stamp = clock.stamp(time.date)
            let failure = Self.attempt { () throws(LogbookError) in
                try logbook.append(
                    SensorRecord(
                        named: name, sample, time: stamp.time, timeSource: stamp.source, coordinate: fix?.coordinate,
                        segment: segment))
                written.sensor += 1
            }
            storage("writing a sensor reading", failure)
            apply(troubles.ended(sensorNamed: name, saying: "[sensor.\(name)] gives readings again"))
        case .failure(let failure):
            apply(
                troubles.happened(
                    sensorNamed: name,
                    .init(
                        level: .warning, message: "no reading of [sensor.\(name)]: \(failure); will try again",
                        remedy: .checkSensor),
                    cause: failure.absence))
        }
    }

    /// An air reading is stamped with its hour: not before the clock is judged.
    public func mayFetchAir() -> Bool { clock.isJudged }

    /// A fetch ended (SIGTERM during one hands nothing on: nothing is recorded).
    public mutating func fetched(_ report: AirReport, reading: AirQualityReading?, fix: Fix, provider: String) async {
        let now = time.date
        let stamp = clock.stamp(now)
        let place = report.place?.place.displayName
        let currentHour = stamp.time.hourStart
        if let reading {
            let hour = (reading.dataTime ?? currentHour).hourStart
            let source: AirRecord.Source = report.data.airCachedAge == nil ? .live : .cached
            let failure = Self.attempt { () throws(LogbookError) in
                if try !logbook.hasAir(hour: hour, sent: report.sentCoordinate) {
                    try logbook.append(
                        AirRecord(
                            hour: hour, loggedAt: stamp.time, coordinate: fix.coordinate,
                            sentCoordinate: report.sentCoordinate, place: place, values: AirValues(reading),
                            source: source, segment: segment ?? 0))
                    written.air += 1
                } else {
                    // The hour was pending: the service answered for it after all.
                    written.air += try logbook.settle(
                        hour: hour, sent: report.sentCoordinate, values: AirValues(reading), source: source)
                }
            }
            storage("writing an air reading", failure)
            lastAirHour = max(lastAirHour ?? hour, hour)
            apply(troubles.ended(.air, saying: "air quality fetched again"))
            await backfill()
            return
        }
        // Failed (or only a stale cached answer): the hours missed become pending.
        let reason: String
        switch report.air {
        case .failure(let error): reason = error.description
        case .success: reason = "only an older cached answer"
        }
        var hour = lastAirHour.map { $0.addingTimeInterval(3600) } ?? currentHour
        if currentHour.timeIntervalSince(hour) > 7 * 86_400 { hour = currentHour }
        let failure = Self.attempt { () throws(LogbookError) in
            while hour <= currentHour {
                if try !logbook.hasAir(hour: hour, sent: report.sentCoordinate) {
                    try logbook.append(
                        AirRecord(
                            hour: hour, loggedAt: stamp.time, coordinate: fix.coordinate,
                            sentCoordinate: report.sentCoordinate, place: place, source: .pending, reason: reason,
                            segment: segment ?? 0))
                    written.pending += 1
                }
                hour = hour.addingTimeInterval(3600)
            }
        }
        storage("recording a pending hour", failure)
        lastAirHour = currentHour
        apply(
            troubles.happened(
                .air, .init(level: .warning, message: "air quality not fetched (\(reason)); will back-fill")))
    }

    private mutating func backfill() async {
        guard (try? logbook.pending().isEmpty) == false else { return }
        let service = OpenMeteoAirQuality(
            endpoint: settings.airQualityEndpoint,
            client: HTTPClient(
                timeout: .milliseconds(Int(settings.serviceTimeout * 1000)), transport: transport, time: time))
        let outcome = await Backfill.run(logbook: logbook, service: service)
        written.backfilled += outcome.filled
        if outcome.filled + outcome.unavailable > 0 {
            notify(
                .init(
                    level: .info,
                    message: "back-filled \(count: outcome.filled, "hour") (\(outcome.unavailable) unavailable) "
                        + "in \(count: outcome.requests, "request")"))
        }
        if let failure = outcome.failure {
            notify(.init(level: .warning, message: "back-fill stopped: \(failure)"))
        }
    }

    /// A logbook write's outcome: a failure is reported (once while it repeats) and
    /// remembered, never fatal, and the first success after it says so.
    private mutating func storage(_ what: String, _ failure: LogbookError?) {
        guard let error = failure else {
            return apply(troubles.ended(.storage, saying: "writing to the logbook works again", successes: 3))
        }
        let message = "\(what) failed: \(error)" + (error.isStorageProblem ? "; will retry" : "")
        apply(troubles.happened(.storage, .init(level: .error, message: message), cause: "\(error)"))
    }

    /// The body's failure, if any. (Static: the body mutates the logger, which must not be
    /// borrowed meanwhile.)
    private static func attempt(_ body: () throws(LogbookError) -> Void) -> LogbookError? {
        do {
            try body()
            return nil
        } catch { return error }
    }

    private func apply(_ actions: [LoggerTroubles.Action]) {
        for action in actions {
            switch action {
            case .say(let notice): notify(notice)
            case .record(let message): try? logbook.recordError(message, at: time.date)
            case .clear: try? logbook.recordError(nil, at: time.date)
            }
        }
    }
}
