import Airloc
import Fleet
import Uploads

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
            return (HealthCheck(name: name, status: .ok, detail: "\(place) accepts the connection"), false)
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

    /// `doctor`'s checks of each `[upload.NAME]`: the section complete, the server
    /// reachable, the credentials accepted, nothing uploaded. `configuration` as above.
    static func uploads(_ settings: Settings, timeout: Double) async -> (checks: [HealthCheck], configuration: Bool) {
        var checks: [HealthCheck] = []
        var configuration = false
        let deviceID = (try? DeviceIdentity.id(stateDirectory: settings.directories.state)) ?? "unknown"
        for upload in settings.uploads {
            let name = "upload \(upload.name)"
            let plan: UploadPlan
            do { plan = try UploadPlan(upload, settings: settings, deviceID: deviceID) } catch {
                checks.append(
                    HealthCheck(name: name, status: .fail, detail: error.description, advice: "fix the section"))
                configuration = true
                continue
            }
            switch await UploadProbe.check(plan, timeout: .seconds(timeout)) {
            case .accepted(let detail):
                checks.append(HealthCheck(name: name, status: .ok, detail: "\(plan.type.rawValue): \(detail)"))
            case .refused(let reason):
                checks.append(
                    HealthCheck(
                        name: name, status: .fail, detail: reason,
                        advice: "check [upload.\(upload.name)] url, id, box and credentials-file"))
                configuration = true
            case .unreachable(let reason):
                checks.append(
                    HealthCheck(
                        name: name, status: .fail, detail: reason,
                        advice: "check the url and the network (log run keeps the rows until it answers)"))
            }
        }
        return (checks, configuration)
    }
}
