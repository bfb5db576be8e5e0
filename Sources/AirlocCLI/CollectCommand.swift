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
            Reads [collect] broker (AIRLOC_COLLECT_BROKER) with a persistent session into [collect] database
            (AIRLOC_COLLECT_DATABASE: a libpq string or postgresql:// URI; the password from [collect]
            password-file, mode 0600, or PGPASSFILE), creating its tables; after each commit it acknowledges
            on <device prefix>/ack, and devices with [mqtt] end-to-end = collector publish again what it has
            not (docs/collector.md). PostgreSQL down: nothing is acknowledged, 4 batches are held, then the
            broker queues for the session; retried with back-off. Exit status: 0 stopped by SIGTERM/SIGINT;
            69 no libpq; 78 bad configuration (a missing key, a readable password file, credentials refused,
            a newer schema); 64 usage.
            """,
        options: [.flag(.json, "with status: print JSON (schema airloc.collect-status/1)")],
        maxPositionals: 1,
        actions: [
            ActionSpec(
                name: "run", summary: "run the collector in the foreground (airloc-collect.service)", options: []),
            ActionSpec(
                name: "status", summary: "devices, last seen, rows per kind, lag, database and broker state",
                options: [.json]),
        ],
        defaultAction: "run")

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let verb = context.arguments.positionals.first ?? "run"
        let plan: CollectorPlan
        do { plan = try CollectorPlan(settings: context.configuration) } catch { throw .config(error.description) }
        switch verb {
        case "run": return try await collect(context, plan: plan)
        case "status": return status(context, plan: plan)
        default:
            throw .usage("unknown action '\(verb)'; expected run or status", command: spec.name)
        }
    }

    static func collect(_ context: CommandContext, plan: CollectorPlan) async throws(CLIError) -> ExitCode {
        let console = context.console
        console.err("airloc: collecting from \(plan.brokerPlace) (\(plan.topicPrefix)) into \(plan.safeDatabaseName)\n")
        let collector = Collector(plan: plan) { console.err("airloc: collect: \($0)\n") }
        switch await SignalWatch.untilInterrupted({ await collector.run() }) {
        case .unavailable(let reason)?: throw CLIError(code: .unavailable, message: reason)
        case .configuration(let reason)?: throw .config(reason)
        case nil: break
        }
        let state = collector.current
        console.err("airloc: stopped after storing \(state.stored) rows (\(state.refused) refused)\n")
        return .ok
    }

    static func status(_ context: CommandContext, plan: CollectorPlan) -> ExitCode {
        let document = CollectStatusJSON(plan: plan)
        if context.arguments.has(.json) {
            context.console.out(JSONDocument.encode(document))
        } else {
            context.console.out(document.text)
        }
        return document.databaseError == nil ? .ok : .unavailable
    }
}
