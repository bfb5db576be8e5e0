import Airloc
import Arguments
import Collector
import CollectorStation
import FleetStore
import FleetWire
import Foundation
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
            kept). Each message is judged alone and a bad one refused, counted by reason (max-message, default
            65536 bytes); [collect] devices = known takes only devices registered with `collect register`. Exit
            status: 0 stopped by SIGTERM/SIGINT; 69 no libpq; 78 bad configuration (a missing key, a readable
            password file, credentials refused, a newer schema, a metrics address taken); 64 usage.
            """,
        options: [], maxPositionals: nil,
        actions: [
            ActionSpec(name: "run", summary: "run the collector in the foreground (airloc-collect.service)"),
            ActionSpec(
                name: "status", summary: "devices, rows per kind, lag, months kept, database and broker state",
                own: [.json.saying("print JSON (schema airloc.collect-status/1)")]),
            ActionSpec(
                name: "register", summary: "admit devices by name for [collect] devices = known (none: list them)",
                operands: "[DEVICE...]"),
            ActionSpec(name: "unregister", summary: "refuse these devices' messages again", operands: "DEVICE..."),
        ],
        defaultAction: "run")

    static let command = Command(spec: spec) { context throws(CLIError) in
        let actions = [
            CommandAction(spec.actions[0], run: collect), CommandAction(spec.actions[1], run: status),
            CommandAction(spec.actions[2], run: register), CommandAction(spec.actions[3], run: register),
        ]
        let action = spec.actionName(context.arguments)
        if !["register", "unregister"].contains(action), context.arguments.positionals.count > 1 {
            throw .usage("unexpected argument '\(context.arguments.positionals[1])'", command: "collect")
        }
        return try await CommandAction.run(actions, of: spec, context.arguments, context)
    }

    static func plan(_ context: CommandContext) throws(CLIError) -> CollectorPlan {
        let settings = context.configuration
        do { return try CollectorPlan(settings: settings.collect, stateDirectory: settings.directories.state) } catch {
            throw .config(error.description)
        }
    }

    static func collect(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let plan = try plan(context)
        let console = context.console
        let station: CollectorStation
        do { station = try CollectorStation(plan: plan) } catch {
            switch error {
            case .lock(let problem): throw CLIError(problem)
            case .broker(let problem):
                throw CLIError(code: problem.isUnavailable ? .unavailable : .config, message: error.description)
            case .metrics(let problem):
                throw CLIError(code: problem.libraryMissing ? .unavailable : .config, message: error.description)
            }
        }
        console.err("airloc: collecting from \(plan.brokerPlace) (\(plan.topicPrefix)) into \(plan.safeDatabaseName)\n")
        if let url = station.metricsURL { console.err("airloc: metrics on \(url)\n") }
        let outcome = await station.run { console.err(NoticeText.line($0)) }
        if let state = station.collector.report.current {
            console.err("airloc: stopped after storing \(state.stored) rows (\(state.refused) refused)\n")
        }
        if let failure = outcome.failures.first { throw CLIError(failure) }
        return .ok
    }

    /// `collect register DEVICE...` and `collect unregister DEVICE...`; `register` alone lists.
    static func register(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let plan = try plan(context)
        let adding = context.arguments.positionals.first == "register"
        let devices = Array(context.arguments.positionals.dropFirst())
        if let bad = devices.first(where: { !DeviceIdentity.isValidName($0) }) {
            throw .usage("'\(bad)' is not a device name (1-64 letters, digits, - and _)", command: "collect")
        }
        if devices.isEmpty && !adding { throw .usage("name the devices to unregister", command: "collect") }
        do throws(DatabaseError) {
            if devices.isEmpty {
                let known = try RegisteredDevices.list(plan: plan)
                context.console.out(known.isEmpty ? "no device is registered\n" : known.joined(separator: "\n") + "\n")
                return .ok
            }
            let outcome =
                adding
                ? try RegisteredDevices.register(devices, plan: plan)
                : try RegisteredDevices.unregister(devices, plan: plan)
            let verb = adding ? "registered" : "unregistered"
            for device in outcome.changed { context.console.out("\(verb) \(device)\n") }
            for device in outcome.unchanged {
                context.console.out("\(device) was \(adding ? "registered already" : "not registered")\n")
            }
            if plan.settings.devices != .known, adding {
                context.console.err("airloc: note: [collect] devices = any takes every device; set devices = known\n")
            }
            return .ok
        } catch {
            throw CLIError(code: error.isConfiguration ? .config : .unavailable, message: error.description)
        }
    }

    static func status(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let plan = try plan(context)
        let document = CollectStatusJSON(plan: plan, stored: CollectStatusJSON.read(plan))
        if context.arguments.has(.json) {
            context.console.out(JSONDocument.encode(document))
        } else {
            context.console.out(document.text)
        }
        return document.databaseError == nil ? .ok : .unavailable
    }
}
