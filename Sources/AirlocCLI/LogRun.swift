import Airloc
import Foundation
import Location
import Logbook
import Platform

/// `airloc log run`: the field logger in the foreground, until SIGTERM or SIGINT.
///
/// Contract: logging senses the location continuously and unattended, so it needs the
/// "always" grant (77 otherwise, naming the command that gives it); coordinates given
/// with --lat/--lon log a fixed place and need none. Notices go to stderr (the journal
/// under systemd) and never hold a precise position.
enum LogRun {
    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let settings = try LocationOptions.configure(context, command: LogCommand.spec.name)
        let gazetteer = try PlaceData.loadGazetteer(environment: context.environment)
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
        let logbook = try LogCommand.open(context, readOnly: false)
        let console = context.console
        console.err("airloc: logging to \(logbook.url.path)\n")
        for warning in following.warnings { console.err("airloc: warning: \(warning)\n") }
        let publisher = try FleetSetup.publisher(context, settings: settings, logbook: logbook)
        let logger = FieldLogger(
            logbook: logbook, settings: settings, gazetteer: gazetteer, accuracy: following.accuracy,
            notify: { notice in
                let remedy = notice.remedy == .checkGPSD ? " (`airloc doctor` checks gpsd and the receiver)" : ""
                console.err("airloc: \(notice.level.rawValue): \(notice.message)\(remedy)\n")
            })
        let loggerTask = Task {
            var logger = logger
            await logger.run(following)
            return logger.written
        }
        let publisherTask = publisher.map { start in
            Task {
                var publisher = start
                let fatal = await publisher.run()
                if fatal == nil {
                    // Stopped: the logger may have written rows since the last round. A task
                    // of its own, so this task's cancellation does not cut the wait short.
                    _ = await loggerTask.value
                    publisher = await Task { [publisher] in
                        var finishing = publisher
                        await finishing.finish()
                        return finishing
                    }.value
                }
                publisher.close()
                if fatal != nil { loggerTask.cancel() }
                return fatal
            }
        }
        let signals = SignalWatch.interruptAndTerminate {
            loggerTask.cancel()
            publisherTask?.cancel()
        }
        let written = await loggerTask.value
        publisherTask?.cancel()
        let fatal = await publisherTask?.value ?? nil
        signals.cancel()
        console.err(
            "airloc: stopped; this run wrote \(count: written.track, "track point"), "
                + "\(count: written.air, "air reading"), \(count: written.pending, "pending hour"), "
                + "back-filled \(count: written.backfilled, "hour")\n")
        if let fatal {
            throw CLIError(code: .config, message: "MQTT: \(fatal); \(FleetSetup.credentialsAdvice)")
        }
        return .ok
    }
}
