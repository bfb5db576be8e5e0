import Foundation

/// A sensor for one test (particulate, or a CO₂ one: mh-z19, senseair-s8, scd30): scripts/sensor-double.py on a pseudo-terminal of its
/// own, speaking the model's real protocol, with an optional fault.
///
/// Contract: `start` returns once the pty exists (its path is `device`) or throws; the
/// double's log (`CMD wake`, `CMD sleep`, `DATA n`, `VANISH`) is `log`. Dropping the
/// object kills it.
public final class SensorDouble: @unchecked Sendable {
    public let device: String
    private let process: ChildProcess

    private init(process: ChildProcess, device: String) {
        self.process = process
        self.device = device
    }

    /// `model` as `[sensor] model` names it; `fault` as the script's help lists them;
    /// `link` a path made a symlink to the pty.
    public static func start(
        _ model: String, pm25: Double = 12.3, pm10: Double = 20.1, humidity: Double = 45, fault: String? = nil,
        link: String? = nil, co2: Double? = nil, status: Int? = nil, pm25File: String? = nil
    ) async throws -> SensorDouble {
        guard let python = ExternalTool.path(of: "python3") else {
            throw FixtureError("python3 is needed for the sensor double but is not installed")
        }
        var arguments = [
            PackagePaths.file("scripts/sensor-double.py").path, model, "--pm25", "\(pm25)", "--pm10", "\(pm10)",
            "--humidity", "\(humidity)",
        ]
        if let fault { arguments += ["--fault", fault] }
        if let co2 { arguments += ["--co2", "\(co2)"] }
        if let status { arguments += ["--status", "\(status)"] }
        // The air changes under a running logger: the PM2.5 the file holds, from then on.
        if let pm25File { arguments += ["--pm25-file", pm25File] }
        // A stable name for the pty (as udev's /dev/airloc-pm is): a sensor plugged back in.
        if let link { arguments += ["--link", link] }
        let process = try ChildProcess(python, arguments, environment: ProcessInfo.processInfo.environment)
        try await process.waitForOutput("its DEVICE line", timeout: 120) { $0.contains("\n") }
        let line = process.output.prefix { $0 != "\n" }
        guard line.hasPrefix("DEVICE /") else {
            process.stop()
            throw FixtureError("the sensor double did not start (said: '\(line)')")
        }
        return SensorDouble(process: process, device: String(line.dropFirst(7)))
    }

    /// What the double has logged so far.
    public var log: String { process.output }

    /// Waits (with a deadline only a hang reaches) until the log holds `text`.
    public func waitFor(_ text: String) async throws {
        try await process.waitForOutput("'\(text)' in the sensor double's log", timeout: 120) { $0.contains(text) }
    }

    /// Waits (with a deadline only a hang reaches) until `predicate` holds for the log.
    public func waitUntil(_ description: String, _ predicate: @escaping @Sendable (String) -> Bool) async throws {
        try await process.waitForOutput(description, timeout: 120, predicate)
    }

    public func stop() { process.stop() }
}
