import Airloc
import Arguments
import Foundation
import Geo
import Logbook

/// `airloc log`: the field logbook — run the logger, see what it holds, export it, prune it.
enum LogCommand {
    /// Each action with its own options and what runs it.
    static let actions: [CommandAction] = [
        CommandAction(
            ActionSpec(
                name: "run", summary: "run the logger in the foreground (systemd: airloc-log.service)",
                discussion: """
                    Track points every [log] track-interval s or track-distance m, air quality at the first fix,
                    when the data's next hour exists and after moving [log] air-distance m; hours the service
                    could not be asked are recorded as pending and back-filled when it answers again. With an
                    [mqtt] broker every row is published too (docs/fleet.md). Needs the 'always' grant (`airloc
                    auth grant --always`); --lat/--lon logs a fixed place without sensing. SIGTERM or SIGINT:
                    finish the row being written, publish what was written, exit 0.
                    """,
                options: LocationOptions.specs.map(\.name)), run: LogRun.run),
        CommandAction(
            ActionSpec(
                name: "status",
                summary: "the database, its rows by kind, first and last time, pending hours, last error",
                own: [.json.saying("print JSON (schema airloc.log-status/1)")]), run: status),
        CommandAction(
            ActionSpec(
                name: "export", summary: "stream the rows: NDJSON (schema airloc.log/1), CSV, GPX 1.1 or GeoJSON",
                required: [.format],
                discussion: """
                    Rows in time order, in constant memory; --output writes the file beside itself and renames
                    it when complete (0600). --since must be before --until. Readable on read-only media.
                    """,
                own: [
                    .exportFormat,
                    .kind, .since, .until, .output,
                ]), run: LogExportCommand.run),
        CommandAction(
            ActionSpec(
                name: "prune", summary: "delete rows older than T", required: [.before],
                discussion: """
                    --dry-run says how many rows would go and deletes nothing. A T in the future would delete
                    every row: it needs --force.
                    """,
                own: [
                    .before,
                    .dryRun,
                    .force,
                ]), run: prune),
        CommandAction(
            ActionSpec(
                name: "plot", summary: "draw the track coloured by air quality and the air over time (SVG)",
                discussion: """
                    One figure (docs/plot.md): the track in the EPA colour of the reading in force (measured where a
                    sensor logged, else the model), gaps as gaps, start and end, a scale bar; below it the index as a
                    step line over its bands, PM2.5, back-filled hours hatched, local time. Self-contained SVG 1.1,
                    streamed; --format png (with --output) renders it through librsvg for e-paper and small screens
                    (250x122, 800x480). --output writes beside itself and renames when complete. Fewer than two
                    track points in the window: exit 66.
                    """,
                own: [
                    .since, .until, .output, .plotFormat,
                    .width,
                    .height,
                    .scale.saying("us (US AQI, default) or eu (European AQI)"),
                ]), run: LogPlotCommand.run),
    ]

    static let spec = CommandSpec(
        name: "log", summary: "Log position and air quality durably; show, export or prune the logbook",
        discussion: """
            The logbook is $XDG_STATE_HOME/airloc/logbook.sqlite ([log] database, AIRLOC_LOG_DATABASE;
            the system service uses /var/lib/airloc/logbook.sqlite), mode 0600: it holds exact positions.
            T is an ISO 8601 time or date (2026-11-30, 2026-11-30T12:00Z) or an age (90m, 24h, 7d).
            Exit status: 0 ok; 77 not authorized to sense unattended; 66 no logbook yet (status,
            export); 74 the logbook cannot be written; 78 bad configuration; 64 usage.
            """,
        options: LocationOptions.specs, maxPositionals: 1, actions: actions.map(\.spec), defaultAction: "status")

    static let command = Command(spec: spec) { context throws(CLIError) in
        try await CommandAction.run(actions, of: spec, context.arguments, context)
    }

    /// The logbook for reading; a missing one is "no input" (66), not a crash.
    static func open(_ context: CommandContext, readOnly: Bool, outbox: Bool = false, collector: Bool = false)
        throws(CLIError) -> Logbook
    {
        do {
            let logbook = try Logbook(
                url: context.configuration.logDatabase, readOnly: readOnly, outbox: outbox, collector: collector)
            if let warning = logbook.readOnlyWarning { context.console.err("airloc: warning: \(warning)\n") }
            return logbook
        } catch {
            throw Self.error(error)
        }
    }

    /// A logbook that cannot be opened, as the command line ends with it.
    static func error(_ error: LogbookError) -> CLIError {
        switch error {
        case .missing: return CLIError(code: .noInput, message: error.description + " (`airloc log run` creates it)")
        case .empty: return CLIError(code: .noInput, message: error.description)
        case .newerSchema: return CLIError(code: .dataError, message: error.description)
        default: return CLIError(code: .ioError, message: error.description)
        }
    }

    static func status(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let logbook = try open(context, readOnly: true)
        let document: LogStatusJSON
        let uploads = context.configuration.uploads.map(LogStatusJSON.UploadSection.init)
        do { document = try LogStatusJSON(logbook, now: Date(), uploads: uploads) } catch {
            throw CLIError(code: .ioError, message: error.description)
        }
        context.console.out(context.arguments.has(.json) ? JSONDocument.encode(document) : document.text)
        return .ok
    }

    static func prune(_ context: CommandContext) throws(CLIError) -> ExitCode {
        guard let text = context.arguments.value(.before) else {
            throw .usage("prune needs --before T (e.g. --before 365d)", command: spec.name)
        }
        let now = Date()
        let cutoff = try LogTime.parse(text, option: "--before", now: now)
        let dryRun = context.arguments.has(.dryRun)
        if cutoff > now && !context.arguments.has(.force) && !dryRun {
            throw .usage(
                "--before \(text.prefix(40)) is in the future: every row would be deleted. Check with --dry-run; "
                    + "--force deletes them", command: spec.name)
        }
        let logbook = try open(context, readOnly: dryRun)
        do {
            let before = "older than \(UTCTime.iso8601Seconds(cutoff))"
            let rows = { (rows: Logbook.Pruned) in
                "\(count: rows.track, "track point"), \(count: rows.air, "air reading") and "
                    + "\(count: rows.sensor, "sensor reading") \(before)"
            }
            if dryRun {
                context.console.out(
                    "would remove \(rows(try logbook.countBefore(cutoff))) (dry run: nothing deleted)\n")
                return .ok
            }
            context.console.out("removed \(rows(try logbook.prune(before: cutoff)))\n")
            return .ok
        } catch {
            throw CLIError(code: .ioError, message: error.description)
        }
    }
}

/// A time as `--since/--until/--before` take it: ISO 8601, a date, or an age.
enum LogTime {
    /// The window `--since` and `--until` give (export, plot); an empty one is a usage error.
    static func window(_ arguments: ParsedArguments, now: Date = Date()) throws(CLIError) -> LogWindow {
        var window = LogWindow()
        if let since = arguments.value(.since) { window.since = try parse(since, option: "--since", now: now) }
        if let until = arguments.value(.until) { window.until = try parse(until, option: "--until", now: now) }
        if let since = window.since, let until = window.until, since >= until {
            throw .usage(
                "--since (\(UTCTime.iso8601Seconds(since))) is not before --until (\(UTCTime.iso8601Seconds(until))): "
                    + "no row can be in that window", command: "log")
        }
        return window
    }

    static func parse(_ text: String, option: String, now: Date) throws(CLIError) -> Date {
        guard let date = TimeArgument.past(text, now: now) else {
            throw .usage("invalid \(option) '\(text.prefix(40))': expected \(TimeArgument.expected)", command: "log")
        }
        return date
    }
}
