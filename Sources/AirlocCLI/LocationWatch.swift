import Foundation
import Gazetteer
import Geo
import Location

#if canImport(Glibc)
    import Glibc
#endif

/// `airloc locate --watch`: follows the first provider of the chain and prints every
/// event as it happens — one JSON object per line with `--json` (or when stdout is not a
/// terminal), a short text line otherwise.
///
/// Contract: runs until SIGINT/SIGTERM (exit 0) or `--count` fixes; when the followed
/// provider has no fix (lost, none yet, disconnected) the rest of the chain is asked once
/// per outage and its fix printed with its provider, and a later fix from the followed
/// provider takes over again (``FixPreference``). Reduced accuracy applies to every line.
struct LocationWatch {
    var resolver: LocationResolver
    var gazetteer: Gazetteer
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
        let console = resolver.context.console
        let (links, accuracy, warnings) = try resolver.authorizedLinks()
        for warning in warnings { console.err("airloc: \(warning)\n") }
        guard let primary = links.first else { throw .config(UnconfiguredManualProvider.reason) }
        let fallbacks = LocationChain(Array(links.dropFirst()))
        let json = resolver.context.arguments.has("json") || !(isatty(STDOUT_FILENO) == 1)

        let task = Task { () -> Void in
            var fixes = 0
            var askedFallback = false
            var held: Fix?
            var heldIsCurrent = false
            for await update in primary.provider.updates() {
                var event: Event
                switch update {
                case .connected:
                    event = makeEvent("connected", primary.provider.name)
                case .fix(let raw):
                    let fix = raw.limited(to: accuracy)
                    askedFallback = false
                    guard FixPreference.shouldReplace(held, heldIsCurrent: heldIsCurrent, with: fix) else { continue }
                    held = fix
                    heldIsCurrent = true
                    event = makeEvent("fix", primary.provider.name, fix: fix, accuracy: accuracy)
                    fixes += 1
                case .stale(let raw, let reason):
                    heldIsCurrent = false
                    event = makeEvent(
                        "stale", primary.provider.name, fix: raw.limited(to: accuracy),
                        accuracy: accuracy, reason: reason)
                case .lost(_, let reason):
                    heldIsCurrent = false
                    event = makeEvent("lost", primary.provider.name, reason: reason)
                case .noFixYet(let seconds, let mode):
                    event = makeEvent(
                        "no_fix_yet", primary.provider.name,
                        reason: GPSDError.noFix(seconds: seconds, lastMode: mode).description)
                case .disconnected(let reason, let retry):
                    heldIsCurrent = false
                    event = makeEvent("disconnected", primary.provider.name, reason: reason)
                    event.retryInS = retry
                }
                print(event, json: json, console: console)
                if let count, fixes >= count { break }
                // An outage: ask the rest of the chain once, until the followed provider recovers.
                let outage = ["lost", "no_fix_yet", "disconnected"].contains(event.event)
                if outage && !askedFallback && !fallbacks.links.isEmpty {
                    askedFallback = true
                    if let answer = try? await fallbacks.locate(mayRun: { _ in nil }) {
                        let fix = answer.fix.limited(to: accuracy)
                        held = fix
                        heldIsCurrent = false  // a stand-in: the followed provider's next fix replaces it
                        print(
                            makeEvent("fix", answer.provider, fix: fix, accuracy: accuracy), json: json,
                            console: console)
                        fixes += 1
                        if let count, fixes >= count { break }
                    }
                }
            }
        }
        let signals = SignalWatch(signals: [SIGINT, SIGTERM]) { task.cancel() }
        await task.value
        signals.cancel()
        return .ok
    }

    func makeEvent(
        _ name: String, _ provider: String, fix: Fix? = nil, accuracy: AccuracyAuthorization = .full,
        reason: String? = nil
    ) -> Event {
        let now = Date()
        return Event(
            event: name, time: ISO8601DateFormatter().string(from: now), provider: provider,
            location: fix.map {
                LocationJSON(fix: $0, provider: provider, authorizedAccuracy: accuracy.rawValue, at: now)
            },
            place: fix.flatMap { gazetteer.locality(for: $0.coordinate) }.map { PlaceJSON($0) }, reason: reason)
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

/// Runs `handler` once when one of `signals` arrives, instead of the default action
/// (termination), so a stream can end cleanly and stop its reader thread.
final class SignalWatch: @unchecked Sendable {
    private var sources: [any DispatchSourceSignal] = []

    init(signals: [Int32], handler: @escaping @Sendable () -> Void) {
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
