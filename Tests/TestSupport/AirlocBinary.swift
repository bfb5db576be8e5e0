import Foundation

/// Runs the built `airloc` executable the way a user or script would.
public enum AirlocBinary {
    /// `$AIRLOC_BIN`, else the executable beside the test bundle, else .build/debug.
    public static var path: String {
        if let explicit = ProcessInfo.processInfo.environment["AIRLOC_BIN"] { return explicit }
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("airloc")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside.path }
        for directory in [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()] {
            let candidate = directory.appendingPathComponent("airloc").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return PackagePaths.file(".build/debug/airloc").path
    }

    /// An environment isolated in `home`: no user config, state or cache leaks in or out,
    /// no system config, no colour.
    public static func environment(home: URL, extra: [String: String] = [:]) -> [String: String] {
        var environment = [
            "HOME": home.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "XDG_STATE_HOME": home.appendingPathComponent("state").path,
            "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
            "XDG_DATA_HOME": home.appendingPathComponent("data").path,
            "AIRLOC_SYSTEM_CONFIG": home.appendingPathComponent("etc-airloc.conf").path,
            "AIRLOC_DATA": PackagePaths.file("data/gazetteer.bin").path,
            // The sensor locks stay in the test's home, not the machine's /run/lock.
            "AIRLOC_LOCK_DIR": home.appendingPathComponent("lock").path,
            "AIRLOC_RUNTIME_DIR": home.appendingPathComponent("run").path,
            // Nothing in a test may reach the real services.
            "AIRLOC_AIR_QUALITY_URL": "http://127.0.0.1:9", "AIRLOC_GEOCODING_URL": "http://127.0.0.1:9",
            "AIRLOC_ARCHIVE_URL": "http://127.0.0.1:9", "AIRLOC_POSTAL_URL": "http://127.0.0.1:9",
            "AIRLOC_IP_URL": "http://127.0.0.1:9", "LANG": "C.UTF-8",
        ]
        for (key, value) in extra { environment[key] = value }
        return environment
    }

    /// ``environment(home:extra:)`` with every web service (air quality, archive,
    /// geocoding, postal codes, IP) pointed at `double`.
    public static func environment(home: URL, servicesAt double: HTTPDouble, extra: [String: String] = [:])
        -> [String: String]
    {
        var services: [String: String] = [:]
        for name in ["AIR_QUALITY", "ARCHIVE", "GEOCODING", "POSTAL", "IP"] {
            services["AIRLOC_\(name)_URL"] = double.baseURL
        }
        return environment(home: home, extra: services.merging(extra) { $1 })
    }

    /// Runs airloc; throws ``JSONSchemaCheck/Violation`` when it printed JSON its schema
    /// does not allow.
    public static func run(
        _ arguments: [String], environment: [String: String], stdin: String? = nil, timeout: TimeInterval = 120
    ) async throws -> ChildProcess.Result {
        let result = try await ChildProcess.run(
            path, arguments, environment: environment, stdin: stdin, timeout: timeout)
        // Whatever JSON a test sees is checked against its schema (docs/schema/).
        try await JSONSchemaCheck.shared.check(stdout: result.stdout, command: arguments)
        return result
    }
}
