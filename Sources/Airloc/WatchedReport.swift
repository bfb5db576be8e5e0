import AirQuality
import Foundation
import Gazetteer
import Geo
import Platform
import Readings
import Sensors
import Settings
import Web

/// What `now --watch` shows, kept current by ``AirFollow``: the last report, its fix and
/// place following the position, and the sensors' latest readings beside it.
///
/// Contract: after every event and tick (``settled()``) `show` is called with the report
/// as of the injected clock (with `ticking`, a tick every second, for a screen whose ages
/// count up; without, only the loop's own deadlines) (nil before the first, with `waiting` saying why), and whether
/// it changed since the last call: a new reading or place, a sensor's reading, or the
/// first position lost. A failed fetch is handed to `warn` (the caller decides where it
/// goes); the report shown keeps the sensors' readings across fetches.
public struct WatchedReport: AirFollowConsumer, Sendable {
    /// The settings watched with (the `[sensor.NAME]` sections' order and places).
    public let settings: Settings
    let gazetteer: Gazetteer
    /// The clock the report's age is shown on.
    public let time: any TimeSource
    let show: @Sendable (_ report: AirReport?, _ waiting: String, _ changed: Bool) -> Void
    let warn: @Sendable (String) -> Void
    /// A tick every second: what is shown holds ages that count.
    let ticking: Bool
    /// The report shown (nil before the first).
    public private(set) var report: AirReport?
    private var waiting = "Waiting for a position…"
    private var changed = false
    /// The particulate sensor's latest reading (or failure).
    private var latestMeasured: MeasuredAir?
    /// Each `[sensor.NAME]`'s latest reading (or failure), in the configuration's order.
    private var latestClimate: [MeasuredClimate] = []

    /// A watch drawing with `show`, saying a failed fetch with `warn`.
    public init(
        settings: Settings, gazetteer: Gazetteer, time: any TimeSource, ticking: Bool = false,
        show: @escaping @Sendable (_ report: AirReport?, _ waiting: String, _ changed: Bool) -> Void,
        warn: @escaping @Sendable (String) -> Void
    ) {
        (self.settings, self.gazetteer, self.time, self.show, self.warn) = (settings, gazetteer, time, show, warn)
        self.ticking = ticking
    }

    /// A second from now when ``ticking``: the screen's ages count up.
    public func nextTick(after now: Date) -> Date? { ticking ? now.addingTimeInterval(1) : nil }

    /// A new fix: kept in the report; a change of the place it is in is a change.
    public mutating func arrived(_ fix: Fix, provider: String, received: Date) async {
        guard var shown = report else { return }
        let before = shown.place?.place.id
        shown.fix = fix
        shown.provider = provider
        shown.place = gazetteer.locality(for: fix.coordinate)
        report = shown
        if shown.place?.place.id != before { changed = true }
    }

    /// The particulate sensor's reading (or failure), shown with every report after it.
    public mutating func measured(_ result: Result<SensorSample, SensorFailure>, fix: Fix?, provider: String?) async {
        switch result {
        case .success(let sample): latestMeasured = .reading(MeasuredReading(sample: sample))
        case .failure(let failure): latestMeasured = .failed(failure)
        }
        report?.measured = latestMeasured
        changed = true
    }

    /// A `[sensor.NAME]` reading (or failure), shown with every report after it.
    public mutating func measured(
        _ name: String, _ result: Result<ClimateSample, SensorFailure>, fix: Fix?, provider: String?
    ) async {
        let order = settings.climateSensors.map(\.name)
        guard let index = order.firstIndex(of: name), let model = settings.climateSensors[index].model,
            let reading = try? settings.climateSensors[index].reading.get()
        else { return }
        latestClimate.removeAll { $0.name == name }
        latestClimate.append(MeasuredClimate(name: name, model: model, place: reading.place, outcome: result))
        latestClimate.sort { (order.firstIndex(of: $0.name) ?? 0) < (order.firstIndex(of: $1.name) ?? 0) }
        report?.climateSensors = latestClimate
        changed = true
    }

    /// A fetch ended: its report is shown, with the sensors' latest readings.
    public mutating func fetched(_ fetched: AirReport, reading: AirQualityReading?, fix: Fix, provider: String) async {
        if case .failure(let error) = fetched.air { warn("\(error.description); retrying") }
        if report.map({ !$0.saysTheSame(as: fetched) }) ?? true { changed = true }
        report = fetched
        report?.measured = latestMeasured
        report?.climateSensors = latestClimate
    }

    /// No position: said while there is no report yet.
    public mutating func noPosition(_ reason: String, kind: FollowEvent.Kind) {
        waiting = "Waiting for a position… (\(reason))"
        if report == nil { changed = true }
    }

    /// Shows the report as of now.
    public mutating func settled() async {
        var shown = report
        shown?.generatedAt = time.date
        show(shown, waiting, changed)
        changed = false
    }

    /// Follows `following` until the task is cancelled, as `now --watch` does: the air
    /// fetched as the logger fetches it, the particulate sensor and every `[sensor.NAME]`
    /// read on their schedules, each change shown. A `[sensor.NAME]` whose reading cannot be
    /// set up (a bad section) is left out of the watch.
    public func follow(_ following: LocationSession.Following, gazetteer: Gazetteer, request: AirReport.Request) async {
        let (settings, accuracy) = (settings, following.accuracy)
        let climate = settings.climateSensors.compactMap { section in
            (try? section.reading.get()).map { (settings: section, reading: $0) }
        }
        var engine = AirFollow(
            consumer: self, settings: settings, time: time, sensor: settings.sensor.plan.map { SerialSensor(plan: $0) },
            climate: climate
        ) { fix, provider in
            await AirReport.make(
                fix: fix, provider: provider, accuracy: accuracy, settings: settings, gazetteer: gazetteer,
                request: request)
        }
        await engine.run(following)
    }
}
