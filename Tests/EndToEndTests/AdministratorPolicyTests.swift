import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The administrator's `[authorization]` policy in /etc/airloc/airloc.conf cannot be
/// escaped by an ordinary user pointing AIRLOC_SYSTEM_CONFIG at a file of their own; only
/// root (packaging, these tests) may move the system file.
@Suite struct AdministratorPolicyTests {
    /// `airloc auth status --json` as an unprivileged user: `nobody` through setpriv when
    /// the tests run as root, else the tests' own user.
    func statusAsOrdinaryUser(environment: [String: String]) async throws -> [String: Any] {
        var command = AirlocBinary.path
        var arguments = ["auth", "status", "--json"]
        if geteuid() == 0 {
            let setpriv = try #require(ExternalTool.path(of: "setpriv"), "setpriv (util-linux) is needed as root")
            arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", command] + arguments
            command = setpriv
        }
        let result = try await ChildProcess.run(command, arguments, environment: environment)
        #expect(result.status == 0, "\(result)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test func anOrdinaryUserCannotChooseTheSystemFile() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        // Readable by anyone: what is tested is the rule, not a permission error.
        chmod(home.url.path, 0o755)
        let own = home.file("my-etc.conf")
        try "[authorization]\npolicy = forbid\n".write(to: own, atomically: true, encoding: .utf8)
        chmod(own.path, 0o644)
        var environment = AirlocBinary.environment(home: home.url)
        environment["AIRLOC_SYSTEM_CONFIG"] = own.path
        let status = try await statusAsOrdinaryUser(environment: environment)
        #expect(status["policy"] as? String != "forbid", "the user's own 'system' file was read: \(status)")
        if geteuid() == 0 {
            // Root may move it (what packaging and these tests rely on).
            let asRoot = try await AirlocBinary.run(["auth", "status", "--json"], environment: environment)
            let document = try JSONSerialization.jsonObject(with: Data(asRoot.stdout.utf8)) as? [String: Any]
            #expect(document?["policy"] as? String == "forbid", "\(asRoot)")
        }
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        _ = stat(path, &info)
        return info.st_mode & 0o777
    }

    /// Positions are personal: state and cache directories left open by an older version
    /// (or made by hand) are closed to other users, and what airloc writes is private.
    @Test(.enabled(if: ExternalTool.available("python3")))
    func stateAndCacheAreTheUsersAloneEvenWhenTheirDirectoriesWereOpen() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let state = home.url.appendingPathComponent("state/airloc").path
        let cache = home.url.appendingPathComponent("cache/airloc").path
        for directory in [state, cache] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            chmod(directory, 0o755)
        }
        let environment = AirlocBinary.environment(home: home.url, servicesAt: double)
        // A umask that would leave new files readable by everyone.
        let shell = ["-c", "umask 000; exec \"$0\" \"$@\"", AirlocBinary.path]
        let granted = try await ChildProcess.run("/bin/sh", shell + ["auth", "grant"], environment: environment)
        #expect(granted.status == 0, "\(granted)")
        let report = try await ChildProcess.run(
            "/bin/sh", shell + ["now", "--lat", "52.52", "--lon", "13.40", "--json"], environment: environment)
        #expect(report.status == 0, "\(report)")
        #expect(mode(state) == 0o700 && mode(cache) == 0o700, "directories: \(mode(state)), \(mode(cache))")
        #expect(mode(state + "/authorization") == 0o600)
        let cached = try FileManager.default.contentsOfDirectory(atPath: cache)
        #expect(!cached.isEmpty)
        for file in cached { #expect(mode(cache + "/" + file) == 0o600, "\(file)") }
    }
}
