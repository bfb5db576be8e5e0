import Airloc
import Arguments
import FieldLog
import Logbook

/// `airloc now`: where am I, and what is the air like here.
enum NowCommand {
    static let spec = CommandSpec(
        name: "now", summary: "Show the air quality at this device's location",
        discussion: """
            Finds this device's position through the provider chain ([location] providers, default
            gpsd then manual — the place chosen with 'airloc use', else [location]; gpsd and ip only
            after you allowed it: see 'airloc auth'), names the nearest place offline, and fetches
            current air quality from Open-Meteo (CAMS). With --lat/--lon the
            given coordinates are used instead and nothing is sensed. Coordinates sent to Open-Meteo are
            rounded to [privacy] outbound-precision (default 0.01°, about 1 km). Answers are cached
            (see 'airloc air --help'); --refresh asks anyway.

            --watch keeps the report current until interrupted: on a terminal the card is redrawn in
            place (the fix age ticking); otherwise one report per change of reading or place (one JSON
            document per line with --json). The air is fetched again when its next hourly value
            exists or after moving [log] air-distance metres, as the logger does.

            Exit status: 0 report complete; 75 air data temporarily unavailable (the location part is
            still printed); 69 gpsd or a service unavailable; 77 location not authorized; 64 bad usage.
            """,
        options: ReportOptions.specs + LocationOptions.specs + [
            .watch
        ])

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let configuration = try LocationOptions.configure(context, command: spec.name)
        let options = try ReportOptions.parse(arguments, configuration: configuration, command: spec.name)
        // Load the places before sensing: a broken installation should fail before we
        // touch the receiver or ask the user anything.
        let gazetteer = try context.loadGazetteer()
        if arguments.has(.watch) {
            return try await NowWatch(
                context: context, settings: configuration, gazetteer: gazetteer, options: options
            ).run()
        }
        let resolution: LocationSession.Location
        do {
            resolution = try await LocationOptions.session(context, settings: configuration, gazetteer: gazetteer)
                .locate()
        } catch {
            throw CLIError(error)
        }
        let fix = resolution.fix
        let accuracy = resolution.accuracy
        for warning in resolution.warnings { context.console.err("airloc: \(warning)\n") }

        // The sensors' readings (a warm-up) run beside the services' answers.
        async let measured = MeasuredNow.measure(configuration)
        async let climate = MeasuredNow.climate(configuration)
        var report = await AirReport.make(
            fix: fix, provider: resolution.provider, attempts: resolution.attempts, accuracy: accuracy,
            context: context, configuration: configuration, gazetteer: gazetteer, options: options)
        (report.measured, report.climateSensors) = MeasuredNow.lend(await measured, await climate, configuration)
        if case .failed(let failure)? = report.measured, options.format != .json {
            context.console.err("airloc: warning: no sensor reading: \(failure)\n")
        }
        options.format.print(report, console: context.console)
        return AirReport.exitCode(for: report, console: context.console)
    }
}
