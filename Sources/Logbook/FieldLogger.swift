import AirQuality
import Airloc
import Foundation
import Gazetteer
import Geo
import Location
import Platform
import Web

/// The field logger: follows the location, records track points and air readings in the
/// logbook as ``LogTrigger`` decides, fills the hours an outage missed, and keeps going
/// through every trouble it can outlive (`airloc log run`).
///
/// Contract:
/// - Rows are stamped by ``GPSClock``: this device's clock until GPS time is trusted, GPS
///   time where the two disagree; rows this boot logged before that are re-stamped.
/// - An air fetch that fails leaves a `pending` row for each hour it misses (one per hour
///   and sent coordinate); the first success afterwards back-fills them (``Backfill``).
/// - A failed write (full disk, read-only file system) is reported and kept as the last
///   error; the logger carries on, and the next write tries again.
/// - Troubles (no position from the start or later, the air service, writing) are said
///   once when they begin and once when they end (``LoggerTroubles``); the logbook's last
///   error is the newest one still going on, and none after recovery.
/// - Times come from the events (when this device received a fix), not from when they
///   are processed, so a slow air fetch does not shift the track.
public struct FieldLogger {
    public let logbook: Logbook
    public var settings: Settings
    public let gazetteer: Gazetteer
    public var accuracy: AccuracyAuthorization
    public var transport: any HTTPTransport
    public var time: any TimeSource
    public var bootID: String?
    /// The monotonic clock (``BootClock/seconds``); injected for tests.
    public var bootSeconds: @Sendable () -> Double?
    public var notify: @Sendable (LoggerNotice) -> Void

    public private(set) var trigger: LogTrigger
    public private(set) var clock = GPSClock()
    private var segment: Int64?
    private var lastFix: (fix: Fix, provider: String)?
    private var lastAirHour: Date?
    private var lastPrune: Date?
    private var troubles = LoggerTroubles()
    /// gpsd was unreachable, and has answered again (a fix is still to come).
    private var providerBack = false
    /// Rows written by this run.
    public private(set) var written = (track: 0, air: 0, pending: 0, backfilled: 0)

    public init(
        logbook: Logbook, settings: Settings, gazetteer: Gazetteer, accuracy: AccuracyAuthorization,
        transport: any HTTPTransport = NetworkTransport(), time: any TimeSource = SystemTime(),
        bootID: String? = BootClock.bootID, bootSeconds: @escaping @Sendable () -> Double? = { BootClock.seconds },
        notify: @escaping @Sendable (LoggerNotice) -> Void = { _ in }
    ) {
        self.logbook = logbook
        self.settings = settings
        self.gazetteer = gazetteer
        self.accuracy = accuracy
        self.transport = transport
        self.time = time
        self.bootID = bootID
        self.bootSeconds = bootSeconds
        self.notify = notify
        trigger = LogTrigger(options: settings.logTrigger)
    }

    // MARK: events

    /// A fix (already limited to the allowed accuracy) from `provider`, received at
    /// `received` by this device's clock.
    public mutating func fixArrived(_ fix: Fix, provider: String, received: Date) async {
        let processing = time.date
        let verdict = clock.observe(fix, system: received)
        if case .disbelieved(let why) = verdict { notify(.init(level: .warning, message: why)) }
        if case .corrected(let offset) = verdict {
            notify(
                .init(level: .warning, message: String(format: "system clock is off by %.1f s; using GPS time", offset))
            )
            if let bootID, let boot = bootSeconds() {
                let logbook = logbook
                let notify = notify
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
        lastFix = (fix, provider)
        if troubles.current(.position) != nil {
            providerBack = false
            apply(troubles.ended(.position, saying: "position back (\(provider))"))
        }
        for action in trigger.fix(fix, at: received) {
            switch action {
            case .recordPoint(let newSegment):
                record(fix, provider: provider, received: received, processing: processing, newSegment: newSegment)
            case .fetchAir:
                await fetchAirWhenJudged(fix, provider: provider, at: received)
            }
        }
    }

    /// Time passed: an air fetch (or a retry) may be due without a new fix; old rows
    /// may be due for pruning.
    public mutating func tick() async {
        let now = time.date
        if let keep = settings.logKeep, lastPrune.map({ now.timeIntervalSince($0) >= 3600 }) ?? true {
            lastPrune = now
            let logbook = logbook
            let notify = notify
            let failure = Self.attempt { () throws(LogbookError) in
                let removed = try logbook.prune(before: now.addingTimeInterval(-keep))
                if removed.track + removed.air > 0 {
                    notify(.init(level: .info, message: "pruned \(removed.track) track and \(removed.air) air rows"))
                }
            }
            storage("pruning", failure)
        }
        guard let last = lastFix else { return }
        for action in trigger.tick(at: now) {
            if case .fetchAir = action { await fetchAirWhenJudged(last.fix, provider: last.provider, at: now) }
        }
    }

    /// No position: the followed provider went away (gpsd stopped, the receiver
    /// unplugged) or was never there (gpsd unreachable from the start). The next point
    /// opens a new segment; the trouble is said once, with what can help.
    public mutating func gap(_ reason: String) {
        trigger.restart()
        segment = nil
        providerBack = false
        apply(
            troubles.happened(
                .position, .init(level: .warning, message: "no position: \(reason); waiting", remedy: .checkGPSD)))
    }

    /// The provider answers again after it could not be reached.
    public mutating func reconnected(_ provider: String) {
        guard troubles.current(.position) != nil, !providerBack else { return }
        providerBack = true
        notify(.init(level: .info, message: "\(provider) is reachable again; waiting for a fix"))
    }

    // MARK: the loop

    /// Logs `following` until the task is cancelled (SIGTERM), waking once a second for
    /// due air fetches — also after its events end (a fixed place reports once and is
    /// then logged on the air's own schedule).
    public mutating func run(_ following: LocationSession.Following) async {
        await tick()
        for await input in following.withTicks(time: time) {
            if Task.isCancelled { return }
            switch input {
            case .event(let event):
                switch event.kind {
                case .fix:
                    if let fix = event.fix { await fixArrived(fix, provider: event.provider, received: event.time) }
                case .disconnected, .lost:
                    gap(event.reason ?? event.kind.rawValue)
                case .connected:
                    reconnected(event.provider)
                case .stale, .noFixYet:
                    break
                }
            case .tick:
                await tick()
            }
        }
    }

    // MARK: writing

    private mutating func record(_ fix: Fix, provider: String, received: Date, processing: Date, newSegment: Bool) {
        let stamp = clock.stamp(received)
        // The monotonic time of reception: now's, less what processing took since.
        let boot = bootSeconds().map { $0 - max(0, processing.timeIntervalSince(received)) }
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

    /// An air reading is stamped with its hour: not before the clock is judged.
    private mutating func fetchAirWhenJudged(_ fix: Fix, provider: String, at now: Date) async {
        guard clock.isJudged else { return trigger.airPostponed(at: now) }
        await fetchAir(fix, provider: provider)
    }

    private mutating func fetchAir(_ fix: Fix, provider: String) async {
        let report = await AirReport.make(
            fix: fix, provider: provider, accuracy: accuracy, settings: settings, gazetteer: gazetteer,
            request: AirReport.Request(climate: false), transport: transport, time: time)
        // SIGTERM during the fetch: nothing was learned about the air; record nothing.
        if Task.isCancelled { return }
        let now = time.date
        let stamp = clock.stamp(now)
        let place = report.place?.place.displayName
        let currentHour = stamp.time.hourStart
        if let reading = trigger.fetched(report, settings: settings, at: now) {
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
        apply(troubles.happened(.storage, .init(level: .error, message: message)))
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
