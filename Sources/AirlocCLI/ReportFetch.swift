import Airloc
import Arguments
import Gazetteer
import Geo
import Location
import Settings
import TerminalUI

/// The command line's side of a report: the spinner while it is fetched, and the exit
/// status it ends with. Shared by `now`, `air`, `pick` and `postal --air`.
extension AirReport {
    static func make(
        fix: Fix, provider: String, attempts: [LocationChain.Attempt] = [], accuracy: AccuracyAuthorization,
        context: CommandContext, configuration: Settings, gazetteer: Gazetteer, options: ReportOptions,
        chosenPlace: Place? = nil
    ) async -> AirReport {
        // The seed's isLoading: a spinner on a terminal when the answer is slow.
        let spinner =
            options.format != .json && context.console.stderrIsTTY ? Spinner(message: "Fetching air quality…") : nil
        let report = await AirReport.make(
            fix: fix, provider: provider, attempts: attempts, accuracy: accuracy, settings: configuration,
            gazetteer: gazetteer, request: options.request, chosenPlace: chosenPlace)
        await spinner?.stop()
        return report
    }

    /// The exit status for a report: 0 when air quality came through (fresh or cached),
    /// 75 when it failed for a reason that may pass, 69 otherwise.
    static func exitCode(for report: AirReport, console: Console) -> ExitCode {
        switch report.air {
        case .success: return .ok
        case .failure(let error):
            console.err("Error: \(error.description)\n")
            return error.isRetryable ? .tempFail : .unavailable
        }
    }
}
