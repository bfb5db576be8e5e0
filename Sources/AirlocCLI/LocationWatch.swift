import Airloc
import Arguments
import Platform
import TerminalUI

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

    func run() async throws(CLIError) -> ExitCode {
        let console = context.console
        let following: LocationSession.Following
        do { following = try session.follow(maximumFixes: count) } catch { throw CLIError(error) }
        for warning in following.warnings { console.err("airloc: \(warning)\n") }
        let json = context.arguments.has(.json) || !StandardStream.isTerminal(StandardStream.output)
        let accuracy = following.accuracy
        await SignalWatch.untilInterrupted {
            for await event in following.events {
                print(
                    WatchEventJSON(event, accuracy: accuracy, gazetteer: session.gazetteer), json: json,
                    console: console)
            }
        }
        return .ok
    }

    func print(_ event: WatchEventJSON, json: Bool, console: Console) {
        if json {
            console.out(JSONDocument.encode(event, pretty: false))
            return
        }
        console.out(LocationText(console: console).render(event))
    }
}
