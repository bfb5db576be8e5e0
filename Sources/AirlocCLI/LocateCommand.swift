import Airloc
import Arguments
import Foundation
import TerminalUI

/// `airloc locate`: where this device is, from which provider, how precise and how old —
/// once, or as a stream of JSON lines for scripts (`--watch`, like `gpspipe -w`).
enum LocateCommand {
    static let spec = CommandSpec(
        name: "locate", summary: "Show this device's position and the nearest place",
        discussion: """
            Asks the providers in [location] providers order (default: gpsd, then manual) and prints
            the first current fix: coordinate, accuracy radius and what it is based on, source, age,
            altitude/speed when known, and the nearest place. gpsd and ip sense the device and need
            your permission (see 'airloc auth'); ip is used only when you list it, because it tells
            a third party your address.

            --watch streams one JSON object per line until interrupted (or --count fixes): events
            fix, stale, lost, no_fix_yet, connected, disconnected (docs/json-schema.md). When the
            first provider loses its fix, the next providers are asked once and their fix is
            streamed, marked with its provider.

            Exit status: 0 a fix was printed (or the watch was interrupted); 75 no fix yet, try
            again; 69 no provider available; 77 not authorized; 78 configuration error.
            """,
        options: [
            .json.saying("print one JSON document (schema airloc.locate/1)"),
            .watch.saying("stream positions as JSON lines until interrupted"),
            .count,
            .verbose,
        ] + LocationOptions.specs)

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let configuration = try LocationOptions.configure(context, command: spec.name)
        let gazetteer = try context.loadGazetteer()
        let session = LocationOptions.session(context, settings: configuration, gazetteer: gazetteer)
        if context.arguments.has(.watch) {
            let count = context.arguments.value(.count, as: Int.self)
            return try await LocationWatch(session: session, context: context, count: count).run()
        }
        if context.arguments.value(.count) != nil {
            throw .usage("--count only applies to --watch", command: spec.name)
        }
        let resolution: LocationSession.Location
        do { resolution = try await session.locate() } catch { throw CLIError(error) }
        let now = Date()
        let place = gazetteer.locality(for: resolution.fix.coordinate)
        for warning in resolution.warnings { context.console.err("airloc: \(warning)\n") }
        if context.arguments.has(.json) {
            context.console.out(JSONDocument.encode(LocateJSON(resolution, place: place, at: now)))
        } else {
            context.console.out(LocationText(console: context.console).render(resolution, place: place, now: now))
            if let place, place.distance > 50_000 {
                context.console.err("airloc: warning: no populated place within 50 km\n")
            }
            if context.arguments.has(.verbose) {
                context.console.out(LocationText(console: context.console).render(resolution.attempts))
            }
        }
        return .ok
    }
}
