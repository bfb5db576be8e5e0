import Foundation
import TestSupport
import Testing

/// systemd/airloc-log.service as `make install` writes it: systemd itself accepts it, and
/// it keeps the promises docs/logbook.md makes (its own user, its state directory, no
/// restart loop on "a library missing", "not authorized" or "bad configuration", hardened,
/// reading serial sensors as a member of dialout).
@Suite(.enabled(if: ExternalTool.available("systemd-analyze")))
struct SystemdUnitTests {
    /// The unit `name` as `make install` writes it, checked by `systemd-analyze verify`;
    /// its lines, and the directory the binary is in.
    static func verified(_ name: String) async throws -> (lines: Set<String>, binDirectory: String) {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let template = try String(contentsOf: PackagePaths.file("systemd/\(name)"), encoding: .utf8)
        let binDirectory = URL(fileURLWithPath: AirlocBinary.path).deletingLastPathComponent().path
        let unit = template.replacingOccurrences(of: "@BINDIR@", with: binDirectory)
            .replacingOccurrences(of: "@DOCDIR@", with: PackagePaths.file("docs").path)
        let file = directory.file(name)
        try unit.write(to: file, atomically: true, encoding: .utf8)
        let analyze = try #require(ExternalTool.path(of: "systemd-analyze"))
        let verified = try await ChildProcess.run(
            analyze, ["verify", file.path], environment: ProcessInfo.processInfo.environment)
        #expect(verified.status == 0, "\(verified)")
        return (Set(unit.split(separator: "\n").map(String.init)), binDirectory)
    }

    @Test func systemdAcceptsTheUnitAndItIsHardened() async throws {
        let (lines, binDirectory) = try await Self.verified("airloc-log.service")
        for expected in [
            "User=airloc", "StateDirectory=airloc", "StateDirectoryMode=0700", "Restart=on-failure",
            "RestartPreventExitStatus=69 77 78", "ProtectSystem=strict", "NoNewPrivileges=yes", "UMask=0077",
            "SupplementaryGroups=dialout", "PrivateDevices=no", "CapabilityBoundingSet=",
            "ExecStart=\(binDirectory)/airloc log run",
        ] {
            #expect(lines.contains(expected), "\(expected) is missing")
        }
    }

    /// systemd/airloc-collect.service: systemd accepts it, it runs `airloc collect` as the
    /// airloc user, and a configuration it cannot work with does not restart it in a loop.
    @Test func systemdAcceptsTheCollectorUnit() async throws {
        let (lines, binDirectory) = try await Self.verified("airloc-collect.service")
        for expected in [
            "User=airloc", "StateDirectory=airloc", "Restart=on-failure", "RestartPreventExitStatus=69 78",
            "ProtectSystem=strict", "NoNewPrivileges=yes", "UMask=0077", "ExecStart=\(binDirectory)/airloc collect",
        ] {
            #expect(lines.contains(expected), "\(expected) is missing")
        }
    }

    /// A field logger that boots without Wi-Fi logs at once: the unit waits neither for
    /// the network nor for NTP, and orders after nothing it does not pull in but the
    /// passive targets systemd documents for that (time-set.target).
    @Test func theLoggerStartsWithoutANetwork() throws {
        let unit = try String(contentsOf: PackagePaths.file("systemd/airloc-log.service"), encoding: .utf8)
        func values(_ key: String) -> [String] {
            unit.split(separator: "\n").filter { $0.hasPrefix(key + "=") }
                .flatMap { $0.dropFirst(key.count + 1).split(separator: " ").map(String.init) }
        }
        let wants = values("Wants")
        let after = values("After")
        #expect(!(wants + after).contains("network-online.target"), "\(wants) \(after)")
        #expect(!(wants + after).contains("time-sync.target"), "\(wants) \(after)")
        #expect(Set(after).subtracting(wants).subtracting(["time-set.target"]).isEmpty, "ordered after \(after)")
    }
}
