import Airloc
import Arguments
import Platform
import Serve
import TerminalUI

/// `airloc serve`: the device's page, API, /metrics and /data.json (docs/serve.md).
enum ServeCommand {
    static let spec = CommandSpec(
        name: "serve", summary: "Serve this device's page, JSON API, /metrics and /data.json over HTTP",
        discussion: """
            Listens on [serve] listen (default 127.0.0.1:8642) and reads the logbook read-only, as `log status`
            does, and the logger's air cache: it never senses, writes or fetches. GET / is the card, the day's map
            and figure, live; /api/now, /api/status, /api/track (GeoJSON), /api/events (Server-Sent Events),
            /metrics (Prometheus) and /data.json (airrohr's). Positions as [serve] position (exact, coarse,
            none); HTTP Basic (user airloc) with [serve] password-file, needed off loopback. Exit status: 0 stopped
            by SIGTERM/SIGINT; 69 no libmicrohttpd; 78 bad [serve] (taken port, no password off loopback).
            """,
        options: [])

    static let command = Command(spec: spec) { context throws(CLIError) in
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
}
