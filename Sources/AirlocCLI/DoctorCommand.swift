import Airloc
import Arguments
import Diagnosis
import Platform
import TerminalUI

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
        discussion: """
            Checks, in order: the configuration files, the offline place data, the authorization
            state, gpsd (reachable? which receivers does it see?), /dev/gps* links and serial device
            permissions (the dialout group), the particulate sensor ([sensor]: there, openable,
            answering, and the udev line that names it), the manual location, the configured web services,
            secrets others can read (a configuration file holding a password), the MQTT broker
            when [mqtt] url is set, and the collector's broker and database when [collect] is set.
            On a host that only collects ([collect] set; no [mqtt] url, [sensor] or uploads), gpsd,
            the receiver, the sensor, the location and the air service are not checked. A
            configuration that does not load is reported alone: the rest would check the
            defaults. Each problem comes with what to do about it.

            --service checks the station as its services see it, which is not as you do: for the
            logger's unit (and the page's and the collector's where enabled) what systemd runs (the
            user, its groups, the device sandbox), the configuration as the unit reads it, each
            configured serial sensor opened as the service's user, and the authorization in the
            service's state directory; then every check above with the logger's configuration. Run
            it as root (the state directory is the airloc user's).

            Exit status: 0 all needed parts work (warnings allowed); 69 something the configured
            provider chain, the air report or publishing needs does not work; 78 the configuration
            is invalid (including credentials the broker refuses).
            """,
        options: [.json.saying("print one JSON document (schema airloc.doctor/1)"), .service])

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let wording = Checkup.Wording(
            placeData: { $0.description + PlaceData.remedy(for: $0) }, manualPlace: { CLIError($0).message })
        let diagnosis: Diagnosis
        if context.arguments.has(.service) {
            guard ProcessUser.isRoot else {
                throw CLIError(
                    code: .noPermission,
                    message: "doctor --service reads the services' own files (/var/lib/airloc is theirs alone): "
                        + "run it as root (sudo airloc doctor --service)")
            }
            diagnosis = await ServiceView.run(wording: wording)
        } else {
            diagnosis = await Diagnosis.run(
                context.configuration, environment: context.environment,
                configurationError: context.configurationError?.message, wording: wording)
        }
        if let gazetteer = diagnosis.checkup.gazetteer { context.placeData.record(gazetteer) }
        let codes: [Diagnosis.Verdict: ExitCode] = [.ok: .ok, .unavailable: .unavailable, .configuration: .config]
        return report(context, diagnosis.checks, code: codes[diagnosis.verdict] ?? .software)
    }

    /// Prints the checks (text or airloc.doctor/1) and returns `code`.
    private static func report(_ context: CommandContext, _ checks: [HealthCheck], code: ExitCode) -> ExitCode {
        let failed = checks.filter { $0.status == .fail }
        let ok = failed.isEmpty
        if context.arguments.has(.json) {
            let error =
                ok && code == .ok
                ? nil
                : JSONError(
                    code: Int(code.rawValue),
                    message: "\(failed.count) problem\(failed.count == 1 ? "" : "s") to fix: "
                        + failed.map(\.name).joined(separator: ", "))
            context.console.out(JSONDocument.encode(DoctorJSON(ok: ok, checks: checks, error: error)))
        } else {
            context.console.out(CheckupText(console: context.console).render(checks))
        }
        return code
    }
}
