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
            permissions (the dialout group), the manual location, the configured web services,
            secrets others can read (a configuration file holding a password), and the MQTT broker
            when [mqtt] url is set. Each problem comes with what to do about it.

            Exit status: 0 all needed parts work (warnings allowed); 69 something the configured
            provider chain, the air report or publishing needs does not work; 78 the configuration
            is invalid (including credentials the broker refuses).
            """,
        options: [.flag(.json, "print one JSON document (schema airloc.doctor/1)")])

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    struct Report: Encodable {
        var schema = "airloc.doctor/1"
        var ok: Bool
        var checks: [HealthCheck]
        /// What the exit status says when a check failed (null when all needed parts work).
        var error: JSONError?
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
            let loaded = try PlaceData.loadGazetteer(environment: context.environment)
            gazetteer = loaded
            checks.append(
                HealthCheck(name: "place data", status: .ok, detail: "\(loaded.count) places from \(loaded.location)"))
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
        checks += HealthCheck.authorization(machine, providers: providers, senses: senses)
        if providers.contains(.gpsd) { checks += await HealthCheck.gpsd(configuration) }
        checks += HealthCheck.devices()
        // A configured place that is unknown or ambiguous is a configuration error (78), as
        // it is for `locate`; doctor must not call the configuration ok and fail later.
        var placeError: CLIError?
        if let gazetteer {
            do throws(LocationSessionError) {
                let manual = try LocationSession(settings: configuration, gazetteer: gazetteer).manualProvider()
                if let manual {
                    checks.append(
                        HealthCheck(
                            name: "manual location", status: .ok, detail: "\(manual.coordinate) (\(manual.origin))"))
                } else if providers.contains(.manual) {
                    checks.append(
                        HealthCheck(
                            name: "manual location", status: .warn,
                            detail: "none configured (the chain's last resort)",
                            advice: "set [location] latitude/longitude or place, or pass --lat/--lon"))
                }
            } catch {
                let failure = CLIError(error)
                placeError = failure
                // The configuration's own check says so too: the place is a line of it.
                let configurationCheck = HealthCheck(
                    name: "configuration", status: .fail,
                    detail:
                        "\(configuration.manualOrigin ?? "[location] place"): the place cannot be used (see manual location)",
                    advice: "fix the line named")
                if let index = checks.firstIndex(where: { $0.name == "configuration" }) {
                    checks[index] = configurationCheck
                }
                checks.append(
                    HealthCheck(
                        name: "manual location", status: .fail, detail: failure.message,
                        advice: "use another spelling, 'Name, CC', or latitude/longitude"))
            }
        }
        checks.append(await HealthCheck.airQualityService(configuration, environment: context.environment))
        if providers.contains(.ip) && authorized {
            checks.append(await HealthCheck.ipService(configuration))
        }
        checks += HealthCheck.secrets(configuration)
        var brokerRefused = false
        if let broker = await FleetAdvice.check(configuration, timeout: min(configuration.serviceTimeout, 10)) {
            checks.append(broker.check)
            brokerRefused = broker.configuration
        }

        let failed = checks.filter { $0.status == .fail }
        let ok = failed.isEmpty
        let code: ExitCode =
            context.configurationError != nil || placeError != nil || brokerRefused ? .config : ok ? .ok : .unavailable
        if context.arguments.has(.json) {
            let error =
                ok && code == .ok
                ? nil
                : JSONError(
                    code: Int(code.rawValue),
                    message: "\(failed.count) problem\(failed.count == 1 ? "" : "s") to fix: "
                        + failed.map(\.name).joined(separator: ", "))
            context.console.out(JSONDocument.encode(Report(ok: ok, checks: checks, error: error)))
        } else {
            context.console.out(render(checks, console: context.console))
        }
        return code
    }

    /// Both grants, as Core Location has them: use at a terminal, and always (unattended
    /// runs: scripts, cron, systemd, the logger).
    static func render(_ checks: [HealthCheck], console: Console) -> String {
        var lines: [String] = []
        for check in checks {
            let word: String
            switch check.status {
            case .ok: word = console.dim("ok  ")
            case .warn: word = console.warning("warn")
            case .fail: word = console.bold("FAIL")
            }
            lines.append("\(word)  \(check.name): \(check.detail)")
            if let advice = check.advice, check.status != .ok { lines.append("      → \(advice)") }
        }
        let failed = checks.filter { $0.status == .fail }.count
        lines.append(failed == 0 ? "All needed parts work." : "\(failed) problem\(failed == 1 ? "" : "s") to fix.")
        return lines.joined(separator: "\n") + "\n"
    }
}
