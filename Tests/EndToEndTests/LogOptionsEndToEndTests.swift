import Foundation
import TestSupport
import Testing

/// What `airloc log` accepts and says, as a user at a terminal meets it: options that do
/// not fit the action are refused, prune can be tried first and refuses to delete the
/// future, and the status reads as English.
struct LogOptionsEndToEndTests {
    /// A home whose logbook holds `rows` track points (the bench's writer, one second
    /// apart from now on).
    static func home(rows: Int) async throws -> (TemporaryDirectory, [String: String]) {
        let home = try TemporaryDirectory()
        let database = home.file("logbook.sqlite").path
        if rows > 0 {
            let bench = URL(fileURLWithPath: AirlocBinary.path).deletingLastPathComponent()
                .appendingPathComponent("airloc-bench").path
            let written = try await ChildProcess.run(bench, ["logbook-write", database, "\(rows)"], environment: [:])
            guard written.status == 0 else { throw FixtureError("logbook-write: \(written)") }
        }
        return (home, AirlocBinary.environment(home: home.url, extra: ["AIRLOC_LOG_DATABASE": database]))
    }

    static func trackRows(_ environment: [String: String]) async throws -> Int? {
        let status = try await AirlocBinary.run(["log", "status", "--json"], environment: environment)
        let document = try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        return document?["track_rows"] as? Int
    }

    @Test(arguments: [
        (["log", "status", "--format", "json"], "--format does not go with 'log status' (for JSON: --json)"),
        (["log", "run", "--json"], "--json does not go with 'log run'"),
        (["log", "prune", "--kind", "air", "--before", "7d"], "--kind does not go with 'log prune'"),
        (
            ["log", "export", "--format", "csv", "--since", "2026-11-30", "--until", "2026-11-29"],
            "--since (2026-11-30T00:00:00Z) is not before --until (2026-11-29T00:00:00Z)"
        ),
    ])
    func anOptionThatDoesNotFitIsAUsageError(arguments: [String], said: String) async throws {
        let (home, environment) = try await Self.home(rows: 1)
        defer { home.remove() }
        let result = try await AirlocBinary.run(arguments, environment: environment)
        // With --json the failure is also a JSON document on stdout (docs/cli.md).
        let failure = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let code = (failure?["error"] as? [String: Any])?["code"] as? Int
        #expect(result.status == 64 && (result.stdout.isEmpty || code == 64), "\(result)")
        #expect(result.stderr.contains(said), "\(result)")
    }

    @Test func pruneSaysWhatWouldGoAndRefusesTheFutureWithoutForce() async throws {
        let (home, environment) = try await Self.home(rows: 5)
        defer { home.remove() }
        let refused = try await AirlocBinary.run(["log", "prune", "--before", "2030-01-01"], environment: environment)
        #expect(refused.status == 64 && refused.stderr.contains("in the future"), "\(refused)")
        #expect(try await Self.trackRows(environment) == 5, "nothing deleted")
        let dry = try await AirlocBinary.run(
            ["log", "prune", "--before", "2030-01-01", "--dry-run"], environment: environment)
        #expect(dry.status == 0, "\(dry)")
        #expect(dry.stdout.contains("would remove 5 track points, 0 air readings and 0 sensor readings"), "\(dry)")
        #expect(try await Self.trackRows(environment) == 5, "a dry run deletes nothing")
        let forced = try await AirlocBinary.run(
            ["log", "prune", "--before", "2030-01-01", "--force"], environment: environment)
        #expect(forced.status == 0 && forced.stdout.contains("removed 5 track points"), "\(forced)")
        #expect(try await Self.trackRows(environment) == 0)
    }

    @Test func theStatusCountsInEnglish() async throws {
        let (home, environment) = try await Self.home(rows: 1)
        defer { home.remove() }
        let status = try await AirlocBinary.run(["log", "status"], environment: environment)
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout.contains("track:     1 point in 1 segment\n"), "\(status.stdout)")
        #expect(status.stdout.contains("air:       0 readings"), "\(status.stdout)")
    }

    /// An empty file (created, never written) is not "no logbook": it is there, empty.
    @Test func anEmptyLogbookIsCalledEmpty() async throws {
        let (home, environment) = try await Self.home(rows: 0)
        defer { home.remove() }
        _ = FileManager.default.createFile(atPath: environment["AIRLOC_LOG_DATABASE"]!, contents: Data())
        let status = try await AirlocBinary.run(["log", "status"], environment: environment)
        #expect(status.status == 66, "\(status)")
        #expect(status.stderr.contains("is empty: nothing has been logged in it yet"), "\(status)")
    }
}
