import Foundation

/// Home Assistant's own integrations in a process of a test's own (scripts/home-assistant.py,
/// Home Assistant 2024.1 from PyPI, installed by `make test`): the real client of what
/// airloc publishes for it.
///
/// Contract: ``start(broker:directory:integrations:)`` returns once Home Assistant says
/// its integrations are set up (`READY`), or throws within 300 s; its output then holds a
/// `STATE …` line per device-tracker change and a `SENSOR <entity> <state> <name>` line per
/// sensor change. The caller stops the process.
public enum HomeAssistantProcess {
    /// Home Assistant with the `mqtt` integration on `broker` and `integrations`
    /// (`--discovery`, `--owntracks`), its configuration under `directory`.
    public static func start(broker: MosquittoBroker, directory: TemporaryDirectory, integrations: [String])
        async throws -> ChildProcess
    {
        guard let python = ExternalTool.path(of: "python3") else {
            throw FixtureError("python3 is needed for Home Assistant but is not installed")
        }
        let process = try ChildProcess(
            python,
            [
                PackagePaths.file("scripts/home-assistant.py").path, "--port", "\(broker.port)", "--config",
                directory.file("ha").path,
            ] + integrations,
            environment: ProcessInfo.processInfo.environment)
        do {
            try await process.waitForOutput("Home Assistant set up (\(integrations))", timeout: 300) {
                $0.contains("READY\n")
            }
        } catch {
            process.stop()
            throw error
        }
        return process
    }

    /// The states a sensor whose friendly name ends in `name` took, in order, from
    /// Home Assistant's output.
    public static func sensorStates(_ output: String, named name: String) -> [String] {
        output.split(separator: "\n").filter { $0.hasPrefix("SENSOR ") && $0.hasSuffix(" \(name)") }
            .map { String($0.split(separator: " ")[2]) }
    }
}
