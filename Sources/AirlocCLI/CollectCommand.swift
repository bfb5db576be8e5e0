import Airloc
import Arguments
import Collector
import Foundation
import Platform

/// `airloc collect`: the fleet collector — every device's rows into PostgreSQL, exactly
/// once, acknowledged end to end; and its status.
enum CollectCommand {
    static let spec = CommandSpec(
        name: "collect",
        summary: "Store every device's published rows in PostgreSQL, exactly once (the fleet collector)",
        discussion: """
            Reads [collect] broker (AIRLOC_COLLECT_BROKER) with a persistent session and stores each device's
            history into [collect] database (AIRLOC_COLLECT_DATABASE: a libpq connection string or
            postgresql:// URI; the password from [collect] password-file, mode 0600, or libpq's PGPASSFILE).
            After each commit it acknowledges on <device prefix>/ack what is stored; devices with
            [mqtt] end-to-end = collector publish again whatever it has not acknowledged (docs/collector.md).
            Exit status: 0 stopped by SIGTERM or SIGINT; 69 libpq is not installed; 78 bad configuration
            (a missing key, a password file others can read, credentials refused, a newer schema); 64 usage.
            """,
        options: [.flag(.json, "with status: print JSON (schema airloc.collect-status/1)")],
        maxPositionals: 1,
        actions: [
            ActionSpec(
                name: "run", summary: "run the collector in the foreground (systemd: airloc-collect.service)",
                discussion: """
                    Creates its tables on first start (docs/collector.md). PostgreSQL down: nothing is
                    acknowledged, at most 4 batches are held, then the broker is left (it queues for the
                    session) until the database is back; retried with back-off, said on stderr.
                    """,
                options: []),
            ActionSpec(
                name: "status", summary: "devices, last seen, rows per kind, lag, the database and broker state",
                options: [.json]),
        ],
        defaultAction: "run")

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let verb = context.arguments.positionals.first ?? "run"
        let stateFile = context.configuration.directories.state.appendingPathComponent("collect-status.json")
        let plan: CollectorPlan
        do { plan = try CollectorPlan(settings: context.configuration, statusFile: stateFile) } catch {
            throw .config(error.description + (error.isMissingKey ? " (or AIRLOC_COLLECT_\(error.variable))" : ""))
        }
        switch verb {
        case "run": return try await collect(context, plan: plan)
        case "status": return status(context, plan: plan, stateFile: stateFile)
        default:
            throw .usage("unknown action '\(verb)'; expected run or status", command: spec.name)
        }
    }

    static func collect(_ context: CommandContext, plan: CollectorPlan) async throws(CLIError) -> ExitCode {
        let console = context.console
        do { try PrivateDirectory.ensure(context.configuration.directories.state) } catch {
            throw CLIError(code: .ioError, message: error.description)
        }
        console.err("airloc: collecting from \(plan.brokerPlace) (\(plan.topicPrefix)) into \(plan.safeDatabaseName)\n")
        let collector = Collector(plan: plan) { console.err("airloc: collect: \($0)\n") }
        if let fatal = await SignalWatch.untilInterrupted({ await collector.run() }) {
            throw CLIError(code: fatal.hasPrefix("libpq") ? .unavailable : .config, message: fatal)
        }
        let state = collector.current
        console.err("airloc: stopped after storing \(state.stored) rows (\(state.refused) refused)\n")
        return .ok
    }

    static func status(_ context: CommandContext, plan: CollectorPlan, stateFile: URL) -> ExitCode {
        let document = CollectStatusJSON(plan: plan, stateFile: stateFile) { pid in
            pid > 0 && kill(pid_t(pid), 0) == 0
        }
        if context.arguments.has(.json) {
            context.console.out(JSONDocument.encode(document))
            return document.databaseError == nil ? .ok : .unavailable
        }
        context.console.out(document.text)
        return document.databaseError == nil ? .ok : .unavailable
    }
}

extension CollectorSetupError {
    var isMissingKey: Bool {
        if case .missing = self { return true }
        return false
    }

    var variable: String {
        if case .missing(let key) = self { return key.uppercased() }
        return ""
    }
}
