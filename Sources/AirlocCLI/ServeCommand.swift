import Airloc
import Arguments
import Foundation
import Platform
import Serve
import TerminalUI

/// `airloc serve`: the device's page, API, /metrics and /data.json (docs/serve.md), or the
/// fleet's page (docs/fleet.md); `serve share` makes, lists and revokes the fleet page's
/// share links.
enum ServeCommand {
    static let spec = CommandSpec(
        name: "serve",
        summary: "Serve this device's page (or the fleet's), JSON API, /metrics and /data.json over HTTP",
        discussion: """
            Listens on [serve] listen (default 127.0.0.1:8642) and reads the logbook read-only, as `log status`
            does, and the logger's air cache: it never senses, writes or fetches. GET / is the card, the day's map
            and figure, live; /api/now, /api/status, /api/track (GeoJSON), /api/events (Server-Sent Events),
            /metrics (Prometheus) and /data.json (airrohr's). With [serve] source = collector it serves the
            fleet's page over [collect] database instead: every device on a map, /api/last, /api/track?device=ID
            (docs/fleet.md). Positions as [serve] position (exact, coarse, none); HTTP Basic (user airloc) with
            [serve] password-file, needed off loopback. Exit status: 0 stopped by SIGTERM/SIGINT; 69 no
            libmicrohttpd or libpq, or the database down; 78 bad [serve] or [collect] (taken port, no password
            off loopback, an old schema); 65 share: an unknown device; 64 usage.
            """,
        options: [], maxPositionals: 2,
        actions: [
            ActionSpec(name: "run", summary: "serve in the foreground (airloc-serve.service)"),
            ActionSpec(
                name: "share", summary: "make, list or revoke a link to one device's window on the fleet page",
                operands: "[DEVICE]",
                discussion: """
                    serve share DEVICE --since T --until T [--expires T] prints a URL whose random token shows only
                    that device, only in that window, without the password; PostgreSQL keeps only its SHA-256.
                    T is an ISO 8601 time or date, or an age (24h: a day ago); --expires also takes a duration
                    ahead (7d). --list shows every link; --revoke ID ends one.
                    """,
                own: [
                    .since.saying("the window's start"), .until.saying("the window's end (default: now)"),
                    .expires,
                    .list, .revoke,
                    .json.saying("print JSON (schema airloc.share/1; --list: one a line)"),
                ]),
        ],
        defaultAction: "run")

    static let command = Command(spec: spec) { context throws(CLIError) in
        let actions = [CommandAction(spec.actions[0], run: run), CommandAction(spec.actions[1], run: share)]
        return try await CommandAction.run(actions, of: spec, context.arguments, context)
    }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let gazetteer = try context.loadGazetteer()
        let server: DeviceServer
        do throws(ServiceFailure) {
            server = try DeviceServer(settings: context.configuration, gazetteer: gazetteer)
        } catch {
            throw CLIError(error)
        }
        let console = context.console
        console.err(server.announcement)
        let outcome = await server.runUntilStopped { console.err(NoticeText.line($0)) }
        if let failure = outcome.failures.first { throw CLIError(failure) }
        return .ok
    }

    static func share(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let asked: ShareLinks.Asked
        if arguments.has(.list) {
            asked = .list
        } else if let id = arguments.value(.revoke) {
            asked = .revoke(id)
        } else if let device = arguments.positionals.dropFirst().first, let since = arguments.value(.since) {
            asked = .make(
                device: device, since: since, until: arguments.value(.until), expires: arguments.value(.expires))
        } else {
            throw CLIError.usage("serve share takes DEVICE --since T (or --list, or --revoke ID)", command: "serve")
        }
        do {
            let said = try ShareLinks(settings: context.configuration).perform(asked, json: arguments.has(.json))
            context.console.out(said.out)
            if let note = said.note { context.console.err("airloc: \(note)\n") }
            return .ok
        } catch {
            let codes: [ShareLinks.Failure.Kind: ExitCode] = [
                .usage: .usage, .unknown: .dataError, .configuration: .config, .unavailable: .unavailable,
            ]
            throw CLIError(
                code: codes[error.kind] ?? .software, message: error.message,
                usageOf: error.kind == .usage ? "serve" : nil)
        }
    }
}
