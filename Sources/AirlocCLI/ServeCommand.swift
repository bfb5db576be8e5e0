import Airloc
import Arguments
import Collector
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
                    .value(.since, "T", "the window's start"), .value(.until, "T", "the window's end (default: now)"),
                    .value(.expires, "T", "when the link stops working (a time, or a duration ahead: 7d)"),
                    .flag(.list, "list the links"), .value(.revoke, "ID", "revoke link ID (from --list)"),
                    .flag(.json, "print JSON (schema airloc.share/1; --list: one a line)"),
                ]),
        ],
        defaultAction: "run")

    static let command = Command(spec: spec) { context throws(CLIError) in
        let actions = [
            CommandAction(spec.actions[0]) { context throws(CLIError) in try await run(context) },
            CommandAction(spec.actions[1]) { context throws(CLIError) in try share(context) },
        ]
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
        console.err("airloc: serving http://\(server.address)/\n")
        let group = ServiceGroup([server], stopOrder: ["serve"], notify: { console.err(NoticeText.line($0)) })
        let outcome = await SignalWatch.untilInterrupted { await group.run() }
        if let failure = outcome.failures.first { throw CLIError(failure) }
        return .ok
    }

    static func share(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        // Whole seconds: a window of "1h" reads as it is stored.
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let shares = ShareLinks(settings: context.configuration, now: now)
        let fleet: FleetDatabase
        do { fleet = try shares.database() } catch { throw CLIError(error) }
        func asked<T>(_ body: () throws(DatabaseError) -> T) throws(CLIError) -> T {
            do { return try body() } catch {
                throw CLIError(
                    code: error.isConfiguration ? .config : .unavailable, message: "\(fleet.name): \(error.description)"
                )
            }
        }
        if arguments.has(.list) {
            let links = try asked { () throws(DatabaseError) in try fleet.shares() }
            // --json: one document a line, as `locate --watch` prints them.
            context.console.out(
                arguments.has(.json)
                    ? links.map { JSONDocument.encode(shares.document($0), pretty: false) }.joined()
                    : shares.table(links))
            return .ok
        }
        if let id = arguments.value(.revoke) {
            guard try asked({ () throws(DatabaseError) in try fleet.revokeShare(id: id, now: now) }) else {
                throw CLIError(code: .dataError, message: "no active share link \(id): `airloc serve share --list`")
            }
            context.console.err("airloc: share link \(id) revoked\n")
            return .ok
        }
        guard let device = arguments.positionals.dropFirst().first, let since = arguments.value(.since) else {
            throw CLIError.usage("serve share takes DEVICE --since T (or --list, or --revoke ID)", command: "serve")
        }
        let start = try LogTime.parse(since, option: "--since", now: now)
        let end = try arguments.value(.until).map { text throws(CLIError) in
            try LogTime.parse(text, option: "--until", now: now)
        }
        guard start < end ?? now else {
            throw CLIError.usage("--since is not before --until: the link would show nothing", command: "serve")
        }
        var expires: Date?
        if let text = arguments.value(.expires) {
            guard let date = shares.expiry(text), date > now else {
                throw CLIError.usage(
                    "invalid --expires '\(text.prefix(40))': a time ahead (2026-12-31T00:00Z) or a duration (7d)",
                    command: "serve")
            }
            expires = date
        }
        guard try asked({ () throws(DatabaseError) in try fleet.knows(device) }) else {
            throw CLIError(
                code: .dataError, message: "no device '\(device)' in \(fleet.name): `airloc collect status` lists them")
        }
        let made = try asked { () throws(DatabaseError) in
            try fleet.createShare(device: device, since: start, until: end ?? now, expires: expires, now: now)
        }
        let url = shares.url(token: made.token)
        if arguments.has(.json) {
            var document = shares.document(made.link)
            document.url = url
            context.console.out(JSONDocument.encode(document))
        } else {
            context.console.out(url + "\n")
            context.console.err("airloc: share link \(made.link.id) made; its URL is shown only now\n")
        }
        return .ok
    }
}
