import Airloc
import Foundation
import Gazetteer
import Geo
import Location
import Platform

/// `airloc locate --watch`: prints every event of ``LocationSession/follow(maximumFixes:)``
/// as it happens — one JSON object per line with `--json` (or when stdout is not a
/// terminal), a short text line otherwise.
///
/// Contract: runs until SIGINT/SIGTERM (exit 0) or `--count` fixes; the rules of what is
/// reported (fallbacks, preference, accuracy) are ``LocationFollower``'s.
struct LocationWatch {
    var session: LocationSession
    var context: CommandContext
    var count: Int?

    /// One line of the stream (docs/json-schema.md, `airloc.watch/1`).
    struct Event: Encodable {
        var schema = "airloc.watch/1"
        var event: String
        var time: String
        var provider: String
        var location: LocationJSON?
        var place: PlaceJSON?
        var reason: String?
        var retryInS: Double?
    }

    func run() async throws(CLIError) -> ExitCode {
        let console = context.console
        let following: LocationSession.Following
        do { following = try session.follow(maximumFixes: count) } catch { throw CLIError(error) }
        for warning in following.warnings { console.err("airloc: \(warning)\n") }
        let json = context.arguments.has(.json) || !StandardStream.isTerminal(StandardStream.output)
        let accuracy = following.accuracy
        let task = Task {
            for await event in following.events {
                print(line(for: event, accuracy: accuracy), json: json, console: console)
            }
        }
        let signals = SignalWatch.interruptAndTerminate { task.cancel() }
        await task.value
        signals.cancel()
        return .ok
    }

    func line(for event: FollowEvent, accuracy: AccuracyAuthorization) -> Event {
        Event(
            event: event.kind.rawValue, time: UTCTime.iso8601Seconds(event.time),
            provider: event.provider,
            location: event.fix.map {
                LocationJSON(fix: $0, provider: event.provider, authorizedAccuracy: accuracy.rawValue, at: event.time)
            },
            place: event.fix.flatMap { session.gazetteer.locality(for: $0.coordinate) }.map { PlaceJSON($0) },
            reason: event.reason, retryInS: event.retryIn)
    }

    func print(_ event: Event, json: Bool, console: Console) {
        if json {
            console.out(JSONDocument.encode(event, pretty: false))
            return
        }
        var line = "\(event.time)  \(event.event.replacingOccurrences(of: "_", with: " "))  [\(event.provider)]"
        if let location = event.location {
            line += String(format: "  %.6f, %.6f", location.latitude, location.longitude)
            if let radius = location.accuracyM { line += " ±\(formatMetres(radius))" }
        }
        if let place = event.place { line += "  \(place.displayName)" }
        if let reason = event.reason { line += "  (\(reason))" }
        if let retry = event.retryInS { line += String(format: ", retrying in %.1f s", retry) }
        console.out(line + "\n")
    }
}
