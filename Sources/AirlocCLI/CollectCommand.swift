import Airloc
import Arguments
import Collector
import Foundation
import HTTPService
import Platform
import TerminalUI

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
            broker queues for the session; retried with back-off. [collect] metrics = HOST:PORT serves /metrics
            for Prometheus; [collect] keep = 400d drops whole months of rows older than that; [collect] share =
            GROUP splits the rows among the connected collectors of GROUP (each its own client-id, no session
            kept). Exit status: 0 stopped by SIGTERM/SIGINT; 69 no libpq; 78 bad configuration (a missing key, a
            readable password file, credentials refused, a newer schema, a metrics address taken); 64 usage.
            """,
        options: [], maxPositionals: 1,
        actions: [
            ActionSpec(name: "run", summary: "run the collector in the foreground (airloc-collect.service)"),
            ActionSpec(
                name: "status", summary: "devices, rows per kind, lag, months kept, database and broker state",
                own: [.flag(.json, "print JSON (schema airloc.collect-status/1)")]),
        ],
        defaultAction: "run")

    static let command = Command(spec: spec) { context throws(CLIError) in
        let actions = [
            CommandAction(spec.actions[0]) { context throws(CLIError) in try await collect(context, plan: plan(context))
            },
            CommandAction(spec.actions[1]) { context throws(CLIError) in status(context, plan: try plan(context)) },
        ]
        return try await CommandAction.run(actions, of: spec, context.arguments, context)
    }

    static func plan(_ context: CommandContext) throws(CLIError) -> CollectorPlan {
        let settings = context.configuration
        do { return try CollectorPlan(settings: settings.collect, stateDirectory: settings.directories.state) } catch {
            throw .config(error.description)
        }
    }

    static func collect(_ context: CommandContext, plan: CollectorPlan) async throws(CLIError) -> ExitCode {
        let console = context.console
        let lock: WriterLock?
        do { lock = try plan.takeLock() } catch { throw CLIError(error) }
        defer { withExtendedLifetime(lock) {} }
        console.err("airloc: collecting from \(plan.brokerPlace) (\(plan.topicPrefix)) into \(plan.safeDatabaseName)\n")
        let collector: Collector
        do { collector = try Collector(plan: plan) } catch {
            throw CLIError(code: error.isUnavailable ? .unavailable : .config, message: "[collect] broker: \(error)")
        }
        let metrics: (server: HTTPServer, url: String)?
        do { metrics = try CollectorMetrics.serve(collector) } catch {
            throw CLIError(code: error.libraryMissing ? .unavailable : .config, message: "[collect] metrics: \(error)")
        }
        defer { metrics?.server.stop() }
        if let metrics { console.err("airloc: metrics on \(metrics.url)\n") }
        let group = ServiceGroup(
            [collector, collector.client], stopOrder: ["collect", "mqtt"], notify: { console.err(NoticeText.line($0)) })
        let outcome = await SignalWatch.untilInterrupted { await group.run() }
        if let state = collector.report.current {
            console.err("airloc: stopped after storing \(state.stored) rows (\(state.refused) refused)\n")
        }
        if let failure = outcome.failures.first { throw CLIError(failure) }
        return .ok
    }

    static func status(_ context: CommandContext, plan: CollectorPlan) -> ExitCode {
        let document = CollectStatusJSON(plan: plan, stored: CollectStatusJSON.read(plan))
        if context.arguments.has(.json) {
            context.console.out(JSONDocument.encode(document))
        } else {
            context.console.out(document.text)
        }
        return document.databaseError == nil ? .ok : .unavailable
    }
}
