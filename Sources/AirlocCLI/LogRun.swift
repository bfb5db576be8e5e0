import Airloc
import Arguments
import Fleet
import LoggerStation
import Platform
import TerminalUI

/// `airloc log run`: the field logger in the foreground, until SIGTERM or SIGINT.
///
/// Contract: logging senses the location continuously and unattended, so it needs the
/// "always" grant (77 otherwise, naming the command that gives it); coordinates given
/// with --lat/--lon log a fixed place and need none. Notices go to stderr (the journal
/// under systemd) and never hold a precise position.
enum LogRun {
    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let settings = try LocationOptions.configure(context, command: LogCommand.spec.name)
        let gazetteer = try context.loadGazetteer()
        let console = context.console
        let station: LoggerStation
        do {
            station = try LoggerStation(settings: settings, gazetteer: gazetteer) { console.err(NoticeText.line($0)) }
        } catch {
            switch error {
            case .notAuthorized: throw CLIError(code: .noPermission, message: error.description)
            case .location(let problem): throw CLIError(problem)
            case .lock(let problem): throw CLIError(problem)
            case .logbook(let problem): throw LogCommand.error(problem)
            case .storage: throw CLIError(code: .ioError, message: error.description)
            case .configuration: throw .config(error.description)
            }
        }
        if let warning = station.logbook.readOnlyWarning { console.err("airloc: warning: \(warning)\n") }
        for line in station.announcements { console.err("airloc: \(line)\n") }
        let outcome = await station.run()
        console.err("airloc: stopped; \(outcome.written.summary)\n")
        if let failure = outcome.failures.first { throw CLIError(failure) }
        return .ok
    }
}

extension CLIError {
    /// Another process writes the file (75: try again once it stopped), or the lock file
    /// cannot be made (74).
    init(_ error: WriterLockError) { self.init(code: error.isHeld ? .tempFail : .ioError, message: error.description) }

    /// A service that could not go on, as the command line ends with it.
    init(_ failure: ServiceFailure) {
        let codes: [ServiceFailure.Kind: ExitCode] = [
            .configuration: .config, .unavailable: .unavailable, .storage: .ioError,
        ]
        let advice = BrokerFinding.credentials("[mqtt]")
        let message = failure.service == .mqtt ? "MQTT: \(failure.message); \(advice)" : failure.message
        self.init(code: codes[failure.kind] ?? .software, message: message)
    }
}
