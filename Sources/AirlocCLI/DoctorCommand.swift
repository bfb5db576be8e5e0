import AirQuality
import Airloc
import Foundation
import Gazetteer
import Geo
import Location
import Platform
import Web

/// `airloc doctor`: checks everything the configured provider chain and the report need,
/// and says what to do about each problem.
///
/// Contract: sends nothing personal — the air-quality check asks for 0°, 0°, and the IP
/// service (which learns the device's address) is contacted only when the user put it in
/// the chain and authorized sensing. Exit 0 only when no check failed; warnings (an
/// optional part missing) do not fail it.
enum DoctorCommand {
    static let spec = CommandSpec(
        name: "doctor", summary: "Check gpsd, the receiver, permissions, services and configuration",
        usage: "[--json]",
        discussion: """
            Checks, in order: the configuration files, the offline place data, the authorization
            state, gpsd (reachable? which receivers does it see?), /dev/gps* links and serial device
            permissions (the dialout group), the manual location, and the configured web services.
            Each problem comes with what to do about it.

            Exit status: 0 all needed parts work (warnings allowed); 69 something the configured
            provider chain or the air report needs does not work; 78 the configuration is invalid.
            """,
        options: [.flag(.json, "print one JSON document (schema airloc.doctor/1)")])

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    struct Report: Encodable {
        var schema = "airloc.doctor/1"
        var ok: Bool
        var checks: [HealthCheck]
    }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let configuration = context.configuration
        var checks: [HealthCheck] = []
        if let error = context.configurationError {
            checks.append(
                HealthCheck(name: "configuration", status: .fail, detail: error.message, advice: "fix the line named"))
        } else {
            let files =
                configuration.sources.isEmpty
                ? "defaults (no file)" : configuration.sources.joined(separator: ", ")
            checks.append(HealthCheck(name: "configuration", status: .ok, detail: files))
        }
        var gazetteer: Gazetteer?
        do {
            gazetteer = try PlaceData.loadGazetteer(environment: context.environment)
            checks.append(
                HealthCheck(
                    name: "place data", status: .ok, detail: "\(gazetteer!.count) places from \(gazetteer!.location)")
            )
        } catch {
            checks.append(
                HealthCheck(
                    name: "place data", status: .fail, detail: error.message,
                    advice: "reinstall (make install) or set AIRLOC_DATA"))
        }
        let providers = configuration.providers
        let senses = providers.contains(.gpsd) || providers.contains(.ip)
        let machine = LocationAuthorization(
            stored: configuration.authorizationStore.load(), policy: configuration.policy)
        let authorized = machine.status == .authorizedWhenInUse || machine.status == .authorizedAlways
        let status = "\(machine.status.rawValue) (accuracy: \(machine.accuracy.rawValue))"
        if authorized || !senses {
            checks.append(HealthCheck(name: "authorization", status: .ok, detail: status))
        } else {
            checks.append(
                HealthCheck(
                    name: "authorization", status: .fail,
                    detail: status
                        + "; the chain lists \(providers.filter { $0 != .manual }.map(\.rawValue).joined(separator: ", "))",
                    advice: machine.status == .restricted
                        ? "the administrator forbids sensing (/etc/airloc/airloc.conf)"
                        : "run `airloc auth grant` (add --reduced for city level)"))
        }
        if providers.contains(.gpsd) { checks += await HealthCheck.gpsd(configuration) }
        checks += HealthCheck.devices()
        if providers.contains(.manual) {
            if let gazetteer,
                let manual = try? LocationSession(settings: configuration, gazetteer: gazetteer).manualProvider()
            {
                checks.append(
                    HealthCheck(name: "manual location", status: .ok, detail: "\(manual.coordinate) (\(manual.origin))")
                )
            } else if configuration.manualPlace != nil {
                checks.append(
                    HealthCheck(
                        name: "manual location", status: .fail,
                        detail: "[location] place = \(configuration.manualPlace!) is not in the place data",
                        advice: "use another spelling, 'Name, CC', or latitude/longitude"))
            } else {
                checks.append(
                    HealthCheck(
                        name: "manual location", status: .warn, detail: "none configured (the chain's last resort)",
                        advice: "set [location] latitude/longitude or place, or pass --lat/--lon"))
            }
        }
        checks.append(await HealthCheck.airQualityService(configuration, environment: context.environment))
        if providers.contains(.ip) && authorized {
            checks.append(await HealthCheck.ipService(configuration))
        }

        let ok = !checks.contains { $0.level == .fail }
        if context.arguments.has(.json) {
            context.console.out(JSONDocument.encode(Report(ok: ok, checks: checks)))
        } else {
            context.console.out(render(checks, console: context.console))
        }
        if context.configurationError != nil { return .config }
        return ok ? .ok : .unavailable
    }

    static func render(_ checks: [HealthCheck], console: Console) -> String {
        var lines: [String] = []
        for check in checks {
            let word: String
            switch check.level {
            case .ok: word = console.dim("ok  ")
            case .warn: word = console.warning("warn")
            case .fail: word = console.bold("FAIL")
            }
            lines.append("\(word)  \(check.name): \(check.detail)")
            if let advice = check.advice, check.level != .ok { lines.append("      → \(advice)") }
        }
        let failed = checks.filter { $0.level == .fail }.count
        lines.append(failed == 0 ? "All needed parts work." : "\(failed) problem\(failed == 1 ? "" : "s") to fix.")
        return lines.joined(separator: "\n") + "\n"
    }
}
