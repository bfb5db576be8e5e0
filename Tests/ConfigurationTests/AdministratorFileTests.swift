import Configuration
import Foundation
import Platform
import Settings
import TestSupport
import Testing

/// The administrator's file is read once, as the administrator's, however it is named:
/// the units once set XDG_CONFIG_HOME=/etc, so /etc/airloc/airloc.conf was read a second
/// time as the user's, and its `[authorization] policy = allow` stopped every service.
@Suite struct AdministratorFileTests {
    /// Loads with `system` as the administrator's file (AIRLOC_SYSTEM_CONFIG: root only,
    /// as the tests run in CI) and `configHome` as XDG_CONFIG_HOME.
    func load(system: URL, configHome: URL, explicit: String? = nil) throws(ConfigurationError) -> Settings {
        try ConfigurationFiles.load(
            environment: [
                "HOME": configHome.path, "AIRLOC_SYSTEM_CONFIG": system.path, "XDG_CONFIG_HOME": configHome.path,
            ], explicitPath: explicit)
    }

    @Test(.enabled(if: ProcessUser.isRoot, "only root may move the system file (AIRLOC_SYSTEM_CONFIG)"))
    func theAdministratorsFileNamedAsTheUsersIsReadOnceAsTheAdministrators() throws {
        let etc = try TemporaryDirectory()
        defer { etc.remove() }
        // The layout of /etc: <config home>/airloc/airloc.conf is the system file itself.
        try FileManager.default.createDirectory(at: etc.file("airloc"), withIntermediateDirectories: true)
        let system = etc.file("airloc/airloc.conf")
        try "[authorization]\npolicy = allow\n[log]\ntrack-interval = 7\n".write(
            to: system, atomically: true, encoding: .utf8)

        let settings = try load(system: system, configHome: etc.url)
        #expect(settings.policy.mode == .allow)
        #expect(settings.logTrigger.trackInterval == 7)
        #expect(settings.sources == [system.path], "read once, as the administrator's: \(settings.sources)")

        // The same through --config, and through a link to the file.
        let viaConfig = try load(system: system, configHome: etc.file("elsewhere"), explicit: system.path)
        #expect(viaConfig.policy.mode == .allow)
        let link = etc.file("link.conf")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: system)
        let viaLink = try load(system: system, configHome: etc.file("elsewhere"), explicit: link.path)
        #expect(viaLink.policy.mode == .allow)
    }

    /// A user's own file is still refused `[authorization]`: the rule is kept, only the
    /// administrator's file is no longer mistaken for a user's.
    @Test(.enabled(if: ProcessUser.isRoot, "only root may move the system file (AIRLOC_SYSTEM_CONFIG)"))
    func aUsersOwnFileStillCannotSetTheAuthorization() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let system = directory.file("system.conf")
        try "[authorization]\npolicy = allow\n".write(to: system, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: directory.file("home/airloc"), withIntermediateDirectories: true)
        let own = directory.file("home/airloc/airloc.conf")
        try "[authorization]\npolicy = allow\n".write(to: own, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) {
            try load(system: system, configHome: directory.file("home"))
        }
    }
}
