import AirQuality
import Foundation
import Geo
import Platform
import Readings
import Sensors
import Settings
import Web

/// What a loop over a followed location does with what happens: the logger writes it,
/// `now --watch` shows it. Called by ``AirFollow``, in order, one call at a time.
public protocol AirFollowConsumer {
    /// Every fix, first, before anything is decided about it.
    mutating func arrived(_ fix: Fix, provider: String, received: Date) async
    /// The trigger wants this fix kept as a track point (`newSegment` when it opens one).
    mutating func record(_ fix: Fix, provider: String, received: Date, newSegment: Bool) async
    /// Whether a fetch that is due may run now (false postpones it, without counting as a
    /// failure: the logger waits until its clock is judged).
    func mayFetchAir() -> Bool
    /// A fetch ended: `reading` is the report's reading when it is current (nil: failed,
    /// or only an older cached answer), as ``LogTrigger/fetched(_:backoff:at:)`` judged.
    mutating func fetched(_ report: AirReport, reading: AirQualityReading?, fix: Fix, provider: String) async
    /// No position: the provider went away or was never reachable (`.lost`,
    /// `.disconnected`: the trigger restarted), or the receiver has no fix yet (`.noFixYet`).
    mutating func noPosition(_ reason: String, kind: FollowEvent.Kind)
    /// The provider answers again.
    mutating func reachable(_ provider: String)
    /// A reading of the particulate sensor ended; `fix` is the one in force (nil before
    /// the first).
    mutating func measured(_ result: Result<SensorSample, SensorFailure>, fix: Fix?, provider: String?) async
    /// A reading of the `[sensor.NAME]` sensor `name` ended; `fix` as for ``measured(_:fix:provider:)``.
    mutating func measured(
        _ name: String, _ result: Result<ClimateSample, SensorFailure>, fix: Fix?, provider: String?
    ) async
    /// Time passed: a deadline of the loop's came (``nextTick(after:)``'s, or another's),
    /// at `now` of the injected clock.
    mutating func ticked(at now: Date) async
    /// When the consumer next has something to do without an event (nil: nothing), asked
    /// after every event and tick: the loop sleeps until the earliest deadline of all.
    func nextTick(after now: Date) -> Date?
    /// An event or tick has been handled in full.
    mutating func settled() async
}

extension AirFollowConsumer {
    /// Nothing by default.
    public mutating func arrived(_ fix: Fix, provider: String, received: Date) async {}
    /// Nothing by default.
    public mutating func record(_ fix: Fix, provider: String, received: Date, newSegment: Bool) async {}
    /// Always, by default.
    public func mayFetchAir() -> Bool { true }
    /// Nothing by default.
    public mutating func noPosition(_ reason: String, kind: FollowEvent.Kind) {}
    /// Nothing by default.
    public mutating func reachable(_ provider: String) {}
    /// Nothing by default.
    public mutating func measured(_ result: Result<SensorSample, SensorFailure>, fix: Fix?, provider: String?) async {}
    /// Nothing by default.
    public mutating func measured(
        _ name: String, _ result: Result<ClimateSample, SensorFailure>, fix: Fix?, provider: String?
    ) async {}
    /// Nothing by default.
    public mutating func ticked(at now: Date) async {}
    /// Never, by default.
    public func nextTick(after now: Date) -> Date? { nil }
    /// Nothing by default.
    public mutating func settled() async {}
}

/// The one loop under the logger and `now --watch`: follows the location, decides with
/// ``LogTrigger`` what to record and when to fetch the air, fetches it, and hands every
/// happening to its consumer.
///
/// Contract:
/// - Times come from the events (when this device received a fix) and from the injected
///   clock (`time`) for ticks: never from the wall clock directly, so the loop runs on
///   ``ManualTime`` in tests.
/// - It sleeps between inputs: after each one it asks for a tick at its next deadline
///   (``nextDeadline(after:)``: a sensor's next reading, the air's next hourly value or
///   retry, the consumer's own) and for none when nothing is due, so a device with nothing
///   to do is not woken. A deadline that a tick left where it was is looked at again a
///   second after that tick, never in a busy loop.
/// - A fix: ``AirFollowConsumer/arrived(_:provider:received:)``, then the trigger's actions
///   in its order — a point to record before the fetch it may bring, so the air row can
///   name the point's segment.
/// - A fetch the consumer may not run yet is postponed; one interrupted by cancellation
///   (SIGTERM) hands nothing on: nothing was learned about the air.
/// - A lost or disconnected provider restarts the trigger (the next point opens a
///   segment) and is handed on as ``AirFollowConsumer/noPosition(_:kind:)``.
/// - With a `sensor`, a reading starts at the first tick and every `[sensor] interval`
///   after the previous one started; it runs beside the loop (its warm-up does not hold up
///   the track) and its end comes back through the loop, in order with everything else, as
///   ``AirFollowConsumer/measured(_:fix:provider:)``. A failed reading (the sensor
///   unplugged) is tried again at the next interval: the port is opened afresh each time.
/// - Each `[sensor.NAME]` sensor in `climate` is read the same way on its own schedule
///   (its `interval`), beside the others: one that fails or hangs until its timeout holds
///   up none of them.
public struct AirFollow<Consumer: AirFollowConsumer> {
    /// What handles the happenings (the logger's writer, the watch's screen).
    public var consumer: Consumer
    /// When to record and fetch.
    public private(set) var trigger: LogTrigger
    /// The settings it runs with.
    public let settings: Settings
    /// The clock of its ticks.
    public let time: any TimeSource
    /// Fetches the report for a fix (the logger's without the climate, the watch's as asked).
    let fetch: @Sendable (Fix, String) async -> AirReport
    /// The particulate sensor, read every `[sensor] interval`.
    public let sensor: (any ParticulateSensor)?
    private var lastFix: (fix: Fix, provider: String)?
    /// When ``tick()`` last looked at what is due.
    private var lastTick: Date?
    private var schedule: SensorSchedule
    private var readings: FollowInputs?
    /// The reading in progress, ended (the sensor put to sleep) when the loop ends.
    private var reading: Task<Void, Never>?
    /// The CO₂ and climate sensors, read every `[sensor.NAME] interval`.
    public let climate: [(settings: ClimateSensorSettings, reading: ClimateReading)]
    private var climateSchedules: [String: SensorSchedule] = [:]
    private var climateReadings: [String: Task<Void, Never>] = [:]
    /// The `[sensor.NAME]` sensors warmed up since their power-on (their first reading
    /// worked): read without a warm-up from then on, until the device goes away.
    private var warmed = Set<String>()

    /// The loop over `consumer`, fetching with `fetch`.
    public init(
        consumer: Consumer, settings: Settings, time: any TimeSource, sensor: (any ParticulateSensor)? = nil,
        climate: [(settings: ClimateSensorSettings, reading: ClimateReading)] = [],
        fetch: @escaping @Sendable (Fix, String) async -> AirReport
    ) {
        self.consumer = consumer
        self.settings = settings
        self.time = time
        self.fetch = fetch
        self.sensor = sensor
        self.climate = climate
        for (section, _) in climate { climateSchedules[section.name] = SensorSchedule(interval: section.interval) }
        schedule = SensorSchedule(interval: settings.sensor.interval)
        trigger = LogTrigger(options: settings.logTrigger)
    }

    /// A fix from `provider`, received at `received` by this device's clock.
    public mutating func fixArrived(_ fix: Fix, provider: String, received: Date) async {
        await consumer.arrived(fix, provider: provider, received: received)
        lastFix = (fix, provider)
        for action in trigger.fix(fix, at: received) {
            switch action {
            case .recordPoint(let newSegment):
                await consumer.record(fix, provider: provider, received: received, newSegment: newSegment)
            case .fetchAir:
                await fetchAir(fix, provider: provider, at: received)
            }
        }
    }

    /// Time passed: what is due without a new fix (an hourly fetch, a retry).
    public mutating func tick() async {
        let now = time.date
        lastTick = now
        await consumer.ticked(at: now)
        if let sensor, let readings, schedule.due(at: now) {
            schedule.started(at: now)
            reading = Task { readings.post(.measured(await sensor.reading())) }
        }
        if let readings {
            for (section, sensor) in climate where climateSchedules[section.name]?.due(at: now) == true {
                let name = section.name
                climateSchedules[name]?.started(at: now)
                let reading = warmed.contains(name) ? sensor.warm : sensor
                climateReadings[name] = Task { readings.post(.climate(name, await reading.read())) }
            }
        }
        guard let last = lastFix else { return }
        for action in trigger.tick(at: now) {
            if case .fetchAir = action { await fetchAir(last.fix, provider: last.provider, at: now) }
        }
    }

    /// When something is next due without an event: the earliest of the sensors' next
    /// readings, the air's next fetch (once there is a fix) and the consumer's own
    /// deadline; nil when only an event can bring work.
    public func nextDeadline(after now: Date) -> Date? {
        var dates: [Date] = []
        if sensor != nil, let next = schedule.nextStart { dates.append(next) }
        for (section, _) in climate {
            if let next = climateSchedules[section.name]?.nextStart { dates.append(next) }
        }
        if lastFix != nil, let next = trigger.nextAirCheck { dates.append(next) }
        if let next = consumer.nextTick(after: now) { dates.append(next) }
        return dates.min()
    }

    /// No position (`reason`): after a loss the next point opens a new segment; a
    /// receiver without a fix yet changes nothing but what the consumer says.
    public mutating func lost(_ reason: String, kind: FollowEvent.Kind) {
        if kind != .noFixYet { trigger.restart() }
        consumer.noPosition(reason, kind: kind)
    }

    private mutating func fetchAir(_ fix: Fix, provider: String, at due: Date) async {
        guard consumer.mayFetchAir() else { return trigger.airPostponed(at: due) }
        let report = await fetch(fix, provider)
        if Task.isCancelled { return }
        let now = time.date
        // A failure is retried, not before a rate limit's back-off (read here, at the edge;
        // the trigger decides whether the report failed).
        let backoff = OpenMeteoGate(cache: ResponseCache(directory: settings.directories.cache)).closed(at: now)
        let reading = trigger.fetched(report, backoff: backoff, at: now)
        await consumer.fetched(report, reading: reading, fix: fix, provider: provider)
    }

    /// A reading ended: handed on with the fix in force.
    public mutating func measured(_ result: Result<SensorSample, SensorFailure>) async {
        schedule.finished()
        await consumer.measured(result, fix: lastFix?.fix, provider: lastFix?.provider)
    }

    /// A reading of `[sensor.NAME]` ended: handed on with the fix in force.
    public mutating func measured(_ name: String, _ result: Result<ClimateSample, SensorFailure>) async {
        climateSchedules[name]?.finished()
        climateReadings[name] = nil
        switch result {
        case .success: warmed.insert(name)
        // Unplugged, or not there: plugged in again, it is powered on again, and warms up.
        case .failure(.device(_, _, let kind)) where kind == .gone || kind == .missing: warmed.remove(name)
        case .failure(.noAnswer): warmed.remove(name)
        case .failure: break
        }
        await consumer.measured(name, result, fix: lastFix?.fix, provider: lastFix?.provider)
    }

    /// Follows `following` until the task is cancelled (or `stop` asks it to), asleep
    /// between its inputs and its deadlines (also after its events end: a fixed place
    /// reports once, then the air's hours are fetched when they come). A reading in
    /// progress is ended on the way out, and waited for: the sensor goes to sleep before
    /// the program ends.
    public mutating func run(_ following: LocationSession.Following, until stop: ServiceContext? = nil) async {
        let inputs = FollowInputs(following, time: time, until: stop)
        readings = inputs
        defer { inputs.wake(at: nil) }
        await tick()
        await consumer.settled()
        setAlarm(inputs)
        await follow(inputs)
        let inProgress = [reading].compactMap { $0 } + climateReadings.values
        for task in inProgress { task.cancel() }
        for task in inProgress { await task.value }
    }

    /// Asks `inputs` for a tick at the next deadline; one that the last tick did not move
    /// (a fetch postponed, a value late) is looked at a second after it, never in a busy loop.
    private func setAlarm(_ inputs: FollowInputs) {
        guard var next = nextDeadline(after: time.date) else { return inputs.wake(at: nil) }
        if let lastTick, next <= lastTick { next = lastTick.addingTimeInterval(1) }
        inputs.wake(at: next)
    }

    private mutating func follow(_ inputs: FollowInputs) async {
        for await input in inputs.stream {
            if Task.isCancelled { return }
            switch input {
            case .event(let event):
                switch event.kind {
                case .fix:
                    if let fix = event.fix { await fixArrived(fix, provider: event.provider, received: event.time) }
                case .disconnected, .lost, .noFixYet:
                    lost(event.reason ?? event.kind.rawValue, kind: event.kind)
                case .connected:
                    consumer.reachable(event.provider)
                case .stale:
                    break
                }
            case .tick:
                inputs.fired()
                await tick()
            case .measured(let result):
                if Task.isCancelled { return }
                await measured(result)
            case .climate(let name, let result):
                if Task.isCancelled { return }
                await measured(name, result)
            }
            if Task.isCancelled { return }
            await consumer.settled()
            setAlarm(inputs)
        }
    }
}

extension AirFollow: Sendable where Consumer: Sendable {}
