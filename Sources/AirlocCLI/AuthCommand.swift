import Airloc
import Arguments
import Location

/// `airloc auth`: see and change whether airloc may sense this device's location.
enum AuthCommand {
    static let spec = CommandSpec(
        name: "auth", summary: "Allow, deny or inspect use of this device's location",
        discussion: """
            Sensing the location (gpsd) needs your permission, like an app on a phone. The decision is
            stored in $XDG_STATE_HOME/airloc/authorization (default ~/.local/state/airloc/authorization).
            An administrator can allow, forbid (restricted) or cap accuracy in /etc/airloc/airloc.conf.
            """,
        options: [
            .flag(.json, "status as JSON (schema airloc.auth/1)"),
            .flag(.always, "with grant: also allow unattended use"),
            .flag(.reduced, "with grant: city-level accuracy only"),
        ],
        maxPositionals: 1,
        actions: [
            ActionSpec(
                name: "status",
                summary: "show the state: notDetermined, authorizedWhenInUse, authorizedAlways, denied, restricted",
                options: [.json]),
            ActionSpec(
                name: "grant", summary: "allow use while you run airloc (--always: unattended use too)",
                discussion: """
                    As on a phone, a grant covers use at a terminal. Scripts, cron jobs, systemd services and the
                    logger run unattended and need --always. --reduced allows only an approximate, city-level
                    position (about 5 km), for every command.
                    """,
                options: [.always, .reduced]),
            ActionSpec(name: "deny", summary: "forbid it (manual coordinates keep working)"),
            ActionSpec(name: "reset", summary: "forget the decision; the next interactive use asks again"),
        ],
        defaultAction: "status")

    static let command = Command(spec: spec) { context throws(CLIError) in try run(context) }

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let store = context.configuration.authorizationStore
        var machine = LocationAuthorization(stored: store.load(), policy: context.configuration.policy)
        let verb = spec.actionName(context.arguments)
        let verbs = spec.verbs
        let action: LocationAuthorization.Action
        switch verb {
        case "status":
            let policy = context.configuration.policy
            if context.arguments.has(.json) {
                context.console.out(JSONDocument.encode(AuthStatusJSON(machine, policy: policy)))
            } else {
                context.console.out("\(machine.status.rawValue) (accuracy: \(machine.accuracy.rawValue))\n")
                if policy.mode != .ask || policy.maximumAccuracy != .full {
                    context.console.out(
                        "administrator policy: \(policy.mode.rawValue), max accuracy \(policy.maximumAccuracy.rawValue)\n"
                    )
                }
            }
            return .ok
        case "grant":
            action = machine.grant(
                always: context.arguments.has(.always),
                accuracy: context.arguments.has(.reduced) ? .reduced : .full)
        case "deny":
            action = machine.deny()
        case "reset":
            action = machine.reset()
        default:
            let hint = suggestion(for: verb, among: verbs).map { " (did you mean '\($0)'?)" } ?? ""
            throw .usage("unknown action '\(verb)'\(hint); expected status, grant, deny or reset", command: spec.name)
        }
        switch action {
        case .persist(let decision):
            do { try store.save(decision) } catch {
                throw CLIError(code: .ioError, message: "cannot save the authorization: \(error)")
            }
        case .clear:
            do { try store.clear() } catch { throw CLIError(code: .ioError, message: "\(error)") }
        case .refuse(let refusal):
            throw CLIError.refused(refusal)
        case .proceed, .prompt:
            break
        }
        context.console.out("\(machine.status.rawValue) (accuracy: \(machine.accuracy.rawValue))\n")
        return .ok
    }
}
