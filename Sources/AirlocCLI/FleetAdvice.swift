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
            let detail = "\(place) accepts the connection; \(settings.mqtt.positionSummary)"
            return (HealthCheck(name: name, status: .ok, detail: detail), false)
        case .refused(_, let reason):
            return (HealthCheck(name: name, status: .fail, detail: reason, advice: credentials), true)
        case .unanswered(let place, let reason):
            let detail = reason ?? "\(place) did not answer within \(Int(timeout)) s"
            let advice = "check [mqtt] url, the network and the broker (log run keeps the rows until it answers)"
            return (HealthCheck(name: name, status: .fail, detail: detail, advice: advice), false)
        case .misconfigured(let reason):
            return (HealthCheck(name: name, status: .fail, detail: reason, advice: "fix [mqtt]"), true)
        }
    }
}
