import AirQuality
import Airloc
import Arguments
import Foundation
import Gazetteer
import Geo
import Platform
import Sensors
import TerminalUI
import Web

/// `airloc now --watch`: the "Your Location" card kept current — what a Raspberry Pi's
/// screen shows all day.
///
/// Contract: the logger's loop (``AirFollow``, the same ``LogTrigger`` rules): the air is
/// fetched at the first fix, when its next hourly value exists and after moving `[log]
/// air-distance`; failures are retried with capped back-off. On a terminal the card is
/// redrawn in place on the alternate screen (the fix age ticking), and the terminal is
/// restored on SIGINT or SIGTERM (exit 0); otherwise one report is printed per change of
/// reading or place — one compact JSON document per line with `--json`.
struct NowWatch {
    var context: CommandContext
    var settings: Settings
    var gazetteer: Gazetteer
    var options: ReportOptions

    func run() async throws(CLIError) -> ExitCode {
        let session = LocationOptions.session(context, settings: settings, gazetteer: gazetteer)
        let following: LocationSession.Following
        do { following = try session.follow() } catch { throw CLIError(error) }
        let console = context.console
        for warning in following.warnings { console.err("airloc: warning: \(warning)\n") }
        let screen = options.format == .text && console.stdoutIsTTY
        // The alternate screen before anything is drawn: a first frame on the user's own
        // screen would erase what was there.
        if screen { console.enterScreen() }
        let shown = Shown(watch: self, screen: screen, time: SystemTime())
        let (settings, gazetteer, request, accuracy) = (settings, gazetteer, options.request, following.accuracy)
        let sensor = settings.sensor.plan.map { SerialSensor(plan: $0) }
        let climate = settings.climateSensors.compactMap { section in
            (try? section.reading.get()).map { (settings: section, reading: $0) }
        }
        let engine = AirFollow(
            consumer: shown, settings: settings, time: shown.time, sensor: sensor, climate: climate
        ) { fix, provider in
            await AirReport.make(
                fix: fix, provider: provider, accuracy: accuracy, settings: settings, gazetteer: gazetteer,
                request: request)
        }
        await SignalWatch.untilInterrupted {
            var engine = engine
            await engine.run(following)
        }
        if screen { console.leaveScreen() }
        return .ok
    }

    /// What is on screen: the last report, its fix and place kept current; drawn after
    /// each event and tick.
    struct Shown: AirFollowConsumer {
        let watch: NowWatch
        let screen: Bool
        let time: any TimeSource
        var report: AirReport?
        var waiting = "Waiting for a position…"
        var changed = false

        var console: Console { watch.context.console }

        /// A new fix: kept in the report; a change of the place it is in is a change.
        mutating func arrived(_ fix: Fix, provider: String, received: Date) async {
            guard var shown = report else { return }
            let before = shown.place?.place.id
            shown.fix = fix
            shown.provider = provider
            shown.place = watch.gazetteer.locality(for: fix.coordinate)
            report = shown
            if shown.place?.place.id != before { changed = true }
        }

        /// The sensor's latest reading (or failure), shown with every report after it.
        var latestMeasured: MeasuredAir?

        mutating func measured(_ result: Result<SensorSample, SensorFailure>, fix: Fix?, provider: String?) async {
            switch result {
            case .success(let sample): latestMeasured = .reading(MeasuredReading(sample: sample))
            case .failure(let failure): latestMeasured = .failed(failure)
            }
            report?.measured = latestMeasured
            changed = true
        }

        /// Each `[sensor.NAME]`'s latest reading (or failure), in the configuration's order.
        var latestClimate: [MeasuredClimate] = []

        mutating func measured(
            _ name: String, _ result: Result<ClimateSample, SensorFailure>, fix: Fix?, provider: String?
        ) async {
            guard let section = watch.settings.climateSensors.first(where: { $0.name == name }),
                let model = section.model, let reading = try? section.reading.get()
            else { return }
            let entry = MeasuredClimate(name: name, model: model, place: reading.place, outcome: result)
            latestClimate.removeAll { $0.name == name }
            latestClimate.append(entry)
            let order = watch.settings.climateSensors.map(\.name)
            latestClimate.sort { (order.firstIndex(of: $0.name) ?? 0) < (order.firstIndex(of: $1.name) ?? 0) }
            report?.climateSensors = latestClimate
            changed = true
        }

        mutating func fetched(_ fetched: AirReport, reading: AirQualityReading?, fix: Fix, provider: String) async {
            if case .failure(let error) = fetched.air, !console.stdoutIsTTY || watch.options.format != .text {
                console.err("airloc: warning: \(error.description); retrying\n")
            }
            if report.map({ !$0.saysTheSame(as: fetched) }) ?? true { changed = true }
            report = fetched
            report?.measured = latestMeasured
            report?.climateSensors = latestClimate
        }

        mutating func noPosition(_ reason: String, kind: FollowEvent.Kind) {
            waiting = "Waiting for a position… (\(reason))"
            if report == nil { changed = true }
        }

        mutating func settled() async {
            defer { changed = false }
            if screen {
                // Every second on a terminal: the fix age ticks.
                if var shown = report {
                    shown.generatedAt = time.date
                    console.redraw(ReportText(console: console).render(shown))
                } else {
                    console.redraw(waiting)
                }
            } else if changed, let report {
                watch.print(report)
            }
        }
    }

    func print(_ report: AirReport) {
        switch options.format {
        case .json: context.console.out(JSONDocument.encode(ReportJSON(report), pretty: false))
        case .line: context.console.out(ReportLine.render(report) + "\n")
        case .text: context.console.out(ReportText(console: context.console).render(report) + "\n")
        }
    }
}
