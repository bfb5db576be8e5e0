import Airloc
import Arguments
import Foundation
import Gazetteer
import Platform
import Sensors
import Settings
import TerminalUI

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
        let (options, watch) = (options, self)
        let shown = WatchedReport(
            settings: settings, gazetteer: gazetteer, time: SystemTime(), ticking: screen,
            show: { report, waiting, changed in
                if screen {
                    // Every second on a terminal: the fix age ticks.
                    console.redraw(report.map { ReportText(console: console).render($0) } ?? waiting)
                } else if changed, let report {
                    watch.print(report)
                }
            },
            warn: { message in
                if !console.stdoutIsTTY || options.format != .text { console.err("airloc: warning: \(message)\n") }
            })
        let (gazetteer, request) = (gazetteer, options.request)
        await SignalWatch.untilInterrupted { await shown.follow(following, gazetteer: gazetteer, request: request) }
        if screen { console.leaveScreen() }
        return .ok
    }

    func print(_ report: AirReport) {
        switch options.format {
        case .json: context.console.out(JSONDocument.encode(ReportJSON(report), pretty: false))
        case .line: context.console.out(ReportLine.render(report) + "\n")
        case .text: context.console.out(ReportText(console: context.console).render(report) + "\n")
        }
    }
}
