import AirQuality
import Airloc
import Foundation
import Gazetteer
import Geo
import Location
import Platform
import Web

/// `airloc now --watch`: the "Your Location" card kept current — what a Raspberry Pi's
/// screen shows all day.
///
/// Contract: the same rules as the logger (``LogTrigger``): the air is fetched at the
/// first fix, when its next hourly value exists and after moving `[log] air-distance`;
/// failures are retried with capped back-off. On a terminal the card is redrawn in place
/// on the alternate screen (the fix age ticking), and the terminal is restored on SIGINT
/// or SIGTERM (exit 0); otherwise one report is printed per change of reading or place —
/// one compact JSON document per line with `--json`.
struct NowWatch {
    var context: CommandContext
    var settings: Settings
    var gazetteer: Gazetteer
    var options: ReportOptions

    /// What is on screen: the last report, its fix and place kept current.
    struct Shown {
        var report: AirReport?
        var trigger: LogTrigger
        var lastFix: (fix: Fix, provider: String)?
        var waiting = "Waiting for a position…"
    }

    func run() async throws(CLIError) -> ExitCode {
        let session = LocationOptions.session(context, settings: settings, gazetteer: gazetteer)
        let following: LocationSession.Following
        do { following = try session.follow() } catch { throw CLIError(error) }
        let console = context.console
        for warning in following.warnings { console.err("airloc: warning: \(warning)\n") }
        let screen = options.format == .text && console.stdoutIsTTY
        let accuracy = following.accuracy
        let watch = self
        // The alternate screen before anything is drawn: a first frame on the user's own
        // screen would erase what was there.
        if screen { console.enterScreen() }
        let task = Task {
            var shown = Shown(trigger: LogTrigger(options: watch.settings.logTrigger))
            if screen { console.redraw(shown.waiting) }
            for await input in following.withTicks(time: SystemTime()) {
                var changed = false
                switch input {
                case .event(let event):
                    if event.kind == .fix, let fix = event.fix {
                        changed = watch.moved(&shown, to: fix, provider: event.provider)
                        for action in shown.trigger.fix(fix, at: event.time) {
                            if case .fetchAir = action {
                                changed = await watch.fetch(&shown, accuracy: accuracy) || changed
                            }
                        }
                    } else if [.lost, .disconnected, .noFixYet].contains(event.kind) {
                        shown.waiting = "Waiting for a position… (\(event.reason ?? event.kind.rawValue))"
                        changed = shown.report == nil
                    }
                case .tick:
                    if !shown.trigger.tick(at: Date()).isEmpty {
                        changed = await watch.fetch(&shown, accuracy: accuracy)
                    }
                }
                if Task.isCancelled { break }
                if screen {
                    // Every second on a terminal: the fix age ticks.
                    if var report = shown.report {
                        report.generatedAt = Date()
                        console.redraw(ReportText(console: console).render(report))
                    } else {
                        console.redraw(shown.waiting)
                    }
                } else if changed, let report = shown.report {
                    watch.print(report)
                }
            }
        }
        let signals = SignalWatch.interruptAndTerminate { task.cancel() }
        await task.value
        signals.cancel()
        if screen { console.leaveScreen() }
        return .ok
    }

    /// A new fix: kept in the report; true when the place it is in changed.
    func moved(_ shown: inout Shown, to fix: Fix, provider: String) -> Bool {
        shown.lastFix = (fix, provider)
        guard var report = shown.report else { return false }
        let before = report.place?.place.id
        report.fix = fix
        report.provider = provider
        report.place = gazetteer.locality(for: fix.coordinate)
        shown.report = report
        return report.place?.place.id != before
    }

    /// Fetches the air for the last fix; true when the report changed.
    func fetch(_ shown: inout Shown, accuracy: AccuracyAuthorization) async -> Bool {
        guard let last = shown.lastFix else { return false }
        let report = await AirReport.make(
            fix: last.fix, provider: last.provider, accuracy: accuracy, settings: settings, gazetteer: gazetteer,
            request: options.request)
        if Task.isCancelled { return false }
        shown.trigger.fetched(report, settings: settings, at: Date())
        if case .failure(let error) = report.air, !context.console.stdoutIsTTY || options.format != .text {
            context.console.err("airloc: warning: \(error.description); retrying\n")
        }
        let changed = shown.report.map { !Self.same($0, report) } ?? true
        shown.report = report
        return changed
    }

    /// Same reading and place: nothing a reader of the stream needs again.
    static func same(_ a: AirReport, _ b: AirReport) -> Bool {
        guard a.place?.place.id == b.place?.place.id else { return false }
        switch (a.air, b.air) {
        case (.success(let x), .success(let y)): return x.time == y.time && x.usAQI == y.usAQI
        case (.failure, .failure): return true
        default: return false
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
