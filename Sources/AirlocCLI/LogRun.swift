import Airloc
import Arguments
import FieldLog
import Fleet
import Platform
import TerminalUI
import Uploads

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
        let session = LocationSession(settings: settings, gazetteer: gazetteer, unattended: true)
        let following: LocationSession.Following
        do { following = try session.follow() } catch {
            if case .notAuthorized(let refusal) = error, refusal == .notDetermined || refusal == .needsAlways {
                throw CLIError(
                    code: .noPermission,
                    message: "the logger senses this device's location continuously and unattended, which needs the "
                        + "'always' grant: run `airloc auth grant --always` (as a service: as the service's user), "
                        + "or log a fixed place with --lat/--lon")
            }
            throw CLIError(error)
        }
        // One logger per logbook: two would fight over the client id and the rows (75).
        let lock: WriterLock
        do { lock = try WriterLock.take(beside: context.configuration.logDatabase) } catch { throw CLIError(error) }
        defer { withExtendedLifetime(lock) {} }
        let logbook = try LogCommand.open(
            context, readOnly: false, outbox: FleetPublisher.publishes(settings),
            collector: FleetPublisher.awaitsCollector(settings))
        let console = context.console
        let say: @Sendable (ServiceNotice) -> Void = { console.err(NoticeText.line($0)) }
        console.err("airloc: logging to \(logbook.url.path)\n")
        for warning in following.warnings { console.err("airloc: warning: \(warning)\n") }
        let publisher: FleetPublisher?
        do { publisher = try FleetPublisher.make(settings: settings, logbook: logbook) } catch {
            switch error {
            case .connection, .passwordFile: throw .config(error.description)
            case .deviceID, .logbook: throw CLIError(code: .ioError, message: error.description)
            }
        }
        if let publisher { console.err("airloc: publishing to \(publisher.destination)\n") }
        let sensors: LoggerSensors
        do { sensors = try LoggerSensors.holding(settings) } catch { throw .config(error.description) }
        defer { withExtendedLifetime(sensors) {} }
        for line in sensors.announcements { console.err("airloc: \(line)\n") }
        let logger = FieldLogger(
            logbook: logbook, settings: settings, gazetteer: gazetteer, accuracy: following.accuracy,
            sensor: sensors.particulate, climate: sensors.sensors, notify: say)
        let uploaders: [Uploader]
        do { uploaders = try Uploader.make(settings: settings, logbook: logbook) } catch {
            throw .config(error.description)
        }
        for plan in uploaders.map(\.plan) {
            console.err("airloc: uploading to [upload.\(plan.name)] \(plan.type.rawValue)\n")
        }
        let uploads: [any Service] = uploaders + uploaders.compactMap(\.broker)
        let service = LoggingService(logger: logger, publisher: publisher, uploads: uploads, notify: say)
        let outcome = await SignalWatch.untilInterrupted { await service.run(following) }
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
        let message = failure.service == "mqtt" ? "MQTT: \(failure.message); \(advice)" : failure.message
        self.init(code: codes[failure.kind] ?? .software, message: message)
    }
}
