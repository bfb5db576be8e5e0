import Airloc
import Arguments
import Location
import TerminalUI

/// `airloc auth`: see and change whether airloc may sense this device's location.
enum AuthCommand {
    static let actions: [CommandAction] = [
        CommandAction(
            ActionSpec(
                name: "status",
                summary: "show the state: notDetermined, authorizedWhenInUse, authorizedAlways, denied, restricted",
                own: [.json.saying("status as JSON (schema airloc.auth/1)")]), run: status),
        CommandAction(
            ActionSpec(
                name: "grant", summary: "allow use while you run airloc (--always: unattended use too)",
                discussion: """
                    As on a phone, a grant covers use at a terminal. Scripts, cron jobs, systemd services and the
                    logger run unattended and need --always. --reduced allows only an approximate, city-level
                    position (about 5 km), for every command.
                    """,
                own: [.always, .reduced])
        ) { context throws(CLIError) in
            try change(context) {
                $0.grant(
                    always: context.arguments.has(.always),
                    accuracy: context.arguments.has(.reduced) ? .reduced : .full)
            }
        },
        CommandAction(ActionSpec(name: "deny", summary: "forbid it (manual coordinates keep working)")) {
            context throws(CLIError) in try change(context) { $0.deny() }
        },
        CommandAction(ActionSpec(name: "reset", summary: "forget the decision; the next interactive use asks again")) {
            context throws(CLIError) in try change(context) { $0.reset() }
        },
    ]

    static let spec = CommandSpec(
        name: "auth", summary: "Allow, deny or inspect use of this device's location",
        discussion: """
            Sensing the location (gpsd) needs your permission, like an app on a phone. The decision is
            stored in $XDG_STATE_HOME/airloc/authorization (default ~/.local/state/airloc/authorization).
            An administrator can allow, forbid (restricted) or cap accuracy in /etc/airloc/airloc.conf.
            """,
        options: [], maxPositionals: 1, actions: actions.map(\.spec), defaultAction: "status")

    static let command = Command(spec: spec) { context throws(CLIError) in
        try await CommandAction.run(actions, of: spec, context.arguments, context)
    }

    static func status(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let machine = LocationAuthorization(
            stored: context.configuration.authorizationStore.load(), policy: context.configuration.policy)
        let policy = context.configuration.policy
        if context.arguments.has(.json) {
            context.console.out(JSONDocument.encode(AuthStatusJSON(machine, policy: policy)))
        } else {
            context.console.out(LocationText(console: context.console).render(machine, policy: policy))
        }
        return .ok
    }

    /// A decision made by the state machine and kept in the store.
    static func change(
        _ context: CommandContext, _ decide: (inout LocationAuthorization) -> LocationAuthorization.Action
    ) throws(CLIError) -> ExitCode {
        let store = context.configuration.authorizationStore
        var machine = LocationAuthorization(stored: store.load(), policy: context.configuration.policy)
        let refusal: LocationAuthorization.Refusal?
        do { refusal = try store.perform(decide(&machine)) } catch {
            throw CLIError(code: .ioError, message: "cannot save the authorization: \(error)")
        }
        if let refusal { throw CLIError.refused(refusal) }
        context.console.out("\(machine.status.rawValue) (accuracy: \(machine.accuracy.rawValue))\n")
        return .ok
    }
}
