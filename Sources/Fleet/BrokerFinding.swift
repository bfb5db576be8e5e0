import Airloc
import MQTT
import Settings

/// `doctor`'s finding of a broker: what ``BrokerProbe`` saw, worded for the section that
/// names the broker (`[mqtt]` on a device, `[collect]` on a collector's host).
///
/// Contract: refused credentials and an unusable section are the configuration's fault
/// (`configuration` true: exit 78); a broker that does not answer is a failure that may
/// pass (69), and the advice says that nothing is lost meanwhile.
public struct BrokerFinding: Sendable {
    /// The check as `doctor` lists it.
    public var check: HealthCheck
    /// The failure is of the settings, not of a broker that may come back.
    public var configuration: Bool

    /// What to do when `section`'s broker refuses the credentials.
    public static func credentials(_ section: String) -> String {
        "check \(section) username and password (or \(section == "[mqtt]" ? "password-file" : "broker-password-file"))"
    }

    /// The finding of `outcome`: `accepted` says what else is true of a broker that
    /// answered, `waiting` who keeps what while it does not.
    public init(
        _ outcome: BrokerProbe.Outcome, name: String, section: String, timeout: Double, accepted: String,
        waiting: String
    ) {
        switch outcome {
        case .accepted(let place):
            check = HealthCheck(name: name, status: .ok, detail: "\(place) accepts the connection\(accepted)")
            configuration = false
        case .refused(_, let reason):
            check = HealthCheck(name: name, status: .fail, detail: reason, advice: Self.credentials(section))
            configuration = true
        case .unanswered(let place, let reason):
            let detail = reason ?? "\(place) did not answer within \(Int(timeout)) s"
            let url = section == "[mqtt]" ? "url" : "broker"
            check = HealthCheck(
                name: name, status: .fail, detail: detail,
                advice: "check \(section) \(url), the network and the broker (\(waiting))")
            configuration = false
        case .misconfigured(let reason):
            check = HealthCheck(name: name, status: .fail, detail: reason, advice: "fix \(section)")
            configuration = true
        case .dropped(let place, let topic):
            check = HealthCheck(
                name: name, status: .fail,
                detail: "\(place) accepts the connection but drops what this account publishes: a probe on \(topic) "
                    + "never came back within \(Int(timeout)) s (rows published so would never be stored)",
                advice: "the broker's ACL gives each account its own subtree (docs/scaling.md): \(section) username "
                    + "and device-id (or topic-prefix) must name the same device")
            configuration = true
        }
    }

    /// `doctor`'s look at `[mqtt]`'s broker; nil without `[mqtt] url`.
    public static func device(_ settings: Settings, timeout: Double) async -> BrokerFinding? {
        guard let outcome = await BrokerProbe.check(settings, timeout: timeout) else { return nil }
        return BrokerFinding(
            outcome, name: "MQTT broker", section: "[mqtt]", timeout: timeout,
            accepted: "; \(settings.mqtt.positionSummary)", waiting: "log run keeps the rows until it answers")
    }

    /// `doctor`'s look at `[collect]`'s broker, given as the collector's plan makes it.
    public static func collector(_ options: MQTTOptions, place: String, timeout: Double) async -> BrokerFinding {
        let outcome = await BrokerProbe.check(options, place: place, section: "[collect]", timeout: timeout)
        return BrokerFinding(
            outcome, name: "collector broker", section: "[collect]", timeout: timeout, accepted: "",
            waiting: "the devices keep their rows until the collector stores them")
    }
}
