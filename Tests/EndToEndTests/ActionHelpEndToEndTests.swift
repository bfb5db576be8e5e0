import Foundation
import TestSupport
import Testing

/// Every action has its own help: its usage, what it does, and only the options it takes.
struct ActionHelpEndToEndTests {
    @Test(arguments: [
        (
            ["log", "run"], "Usage: airloc log run [--lat DEG --lon DEG", ["--gpsd"],
            ["--json", "--format", "--before"]
        ),
        (["log", "export"], "Usage: airloc log export --format", ["--since", "--output"], ["--gpsd", "--dry-run"]),
        (["log", "prune"], "Usage: airloc log prune --before T [--dry-run] [--force]", ["--force"], ["--kind"]),
        (["auth", "grant"], "Usage: airloc auth grant [--always] [--reduced]", ["--always", "--reduced"], ["--json"]),
        (["data", "import"], "Usage: airloc data import --from DIR", ["--from", "--source"], ["--verify"]),
    ])
    func anActionsHelpShowsItsOwnOptions(
        action: [String], usage: String, shown: [String], notShown: [String]
    ) async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let result = try await AirlocBinary.run(
            action + ["--help"], environment: AirlocBinary.environment(home: home.url))
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        #expect(result.stdout.contains(usage), "\(result.stdout)")
        let options = result.stdout.components(separatedBy: "Options:").last ?? ""
        for option in shown { #expect(options.contains("  \(option)"), "\(option) missing:\n\(result.stdout)") }
        for option in notShown { #expect(!options.contains("  \(option)"), "\(option) shown:\n\(result.stdout)") }
    }

    /// The command's own help lists its actions and points at theirs.
    @Test func theCommandsHelpListsItsActions() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let result = try await AirlocBinary.run(
            ["log", "--help"], environment: AirlocBinary.environment(home: home.url))
        #expect(result.status == 0, "\(result)")
        for action in ["run", "status", "export", "prune"] {
            #expect(result.stdout.contains("\n  \(action) "), "\(action) missing:\n\(result.stdout)")
        }
        #expect(result.stdout.contains("See 'airloc log ACTION --help'"))
    }

    /// A usage error in an action shows that action's usage, not the whole command's line.
    @Test(arguments: [
        (["log", "prune"], "Usage: airloc log prune --before T [--dry-run] [--force]\nSee 'airloc log prune --help'."),
        (["log", "status", "--bogus"], "Usage: airloc log status [--json]\nSee 'airloc log status --help'."),
    ])
    func aUsageErrorShowsTheActionsUsage(arguments: [String], said: String) async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let result = try await AirlocBinary.run(arguments, environment: AirlocBinary.environment(home: home.url))
        #expect(result.status == 64 && result.stderr.contains(said), "\(result)")
        #expect(!result.stderr.contains("| export"), "the whole log line: \(result.stderr)")
    }
}
