import Airloc
import Fleet

/// What the command line says about the broker: the advice the library's facts lead to
/// (`log run`'s refusal, `doctor`'s look).
enum FleetAdvice {
    /// What to do when the broker refuses the credentials (`log run` and `doctor`).
    static let credentials = "check [mqtt] username and password (or password-file)"

    /// `doctor`'s check of the broker; `configuration` is true when the failure is the
    /// configuration's (refused credentials, an unusable file): exit 78.
    static func check(_ settings: Settings, timeout: Double) async -> (check: HealthCheck, configuration: Bool)? {
        guard let outcome = await BrokerProbe.check(settings, timeout: timeout) else { return nil }
        let name = "MQTT broker"
        switch outcome {
        case .accepted(let place):
            // What leaves the device, said where the operator looks: a collector's fleet
            // gets the exact track by default, any other the coarse grid.
            let position = settings.mqtt.position
            let chosen = settings.mqtt.configuredPosition == nil ? " by default" : ""
            let why =
                settings.mqtt.endToEnd == .collector && settings.mqtt.configuredPosition == nil
                ? " (end-to-end = collector: the database keeps the track)" : ""
            return (
                HealthCheck(
                    name: name, status: .ok,
                    detail: "\(place) accepts the connection; positions leave \(position.rawValue)\(chosen)\(why)"),
                false
            )
        case .refused(_, let reason):
            return (HealthCheck(name: name, status: .fail, detail: reason, advice: credentials), true)
        case .unanswered(let place, let reason):
            return (
                HealthCheck(
                    name: name, status: .fail, detail: reason ?? "\(place) did not answer within \(Int(timeout)) s",
                    advice: "check [mqtt] url, the network and the broker (log run keeps the rows until it answers)"),
                false
            )
        case .misconfigured(let reason):
            return (HealthCheck(name: name, status: .fail, detail: reason, advice: "fix [mqtt]"), true)
        }
    }
}
