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
            #expect(asRoot.stdout.contains("\"policy\": \"forbid\""), "\(asRoot)")
        }
    }
}
