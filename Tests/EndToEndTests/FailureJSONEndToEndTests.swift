import Foundation
import TestSupport
import Testing

/// A script reading `--json` gets one document on stdout whatever happens: on failure,
/// the command's schema and an `error` object with the exit status, a kind to switch on,
/// the message, and whether trying later helps.
@Suite struct FailureJSONEndToEndTests {
    @Test(arguments: [
        (["now", "--json"], Int32(77), "not_authorized", "airloc.report/1"),
        (["locate", "--json"], Int32(77), "not_authorized", "airloc.locate/1"),
        (["air", "Qqqqzzxxw", "--json"], Int32(65), "data", "airloc.report/1"),
        (["postal", "US", "1", "--json"], Int32(65), "data", "airloc.postal/1"),
        (["reverse", "91", "0", "--json"], Int32(64), "usage", "airloc.reverse/1"),
        (["now", "--lat", "abc", "--lon", "0", "--json"], Int32(64), "usage", "airloc.report/1"),
    ])
    func everyFailureIsOneJSONDocument(arguments: [String], status: Int32, kind: String, schema: String)
        async throws
    {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let port = try GPSFake.freePort()
        let result = try await AirlocBinary.run(
            arguments,
            environment: AirlocBinary.environment(home: home.url, extra: ["AIRLOC_GPSD": "127.0.0.1:\(port)"]))
        #expect(result.status == status, "\(result)")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        #expect(document["schema"] as? String == schema)
        let error = try #require(document["error"] as? [String: Any])
        #expect(error["code"] as? Int == Int(status))
        #expect(error["kind"] as? String == kind)
        #expect(error["retryable"] as? Bool == false)
        #expect((error["message"] as? String).map { !$0.isEmpty && result.stderr.contains($0) } == true)
    }

    /// `collect status --json` and `serve share --json` with a configuration error printed
    /// no JSON (their schemas were missing from the failure table).
    @Test(arguments: [
        (["collect", "status", "--json"], "airloc.collect-status/1"),
        (["serve", "share", "pi", "--since", "1h", "--json"], "airloc.share/1"),
    ])
    func theFleetsCommandsFailInJSONToo(arguments: [String], schema: String) async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let config = home.file("airloc.conf")
        try "[collect]\nbatch = many\n".write(to: config, atomically: true, encoding: .utf8)
        let result = try await AirlocBinary.run(
            arguments + ["--config", config.path], environment: AirlocBinary.environment(home: home.url))
        #expect(result.status == 78, "\(result)")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        #expect(document["schema"] as? String == schema)
        #expect((document["error"] as? [String: Any])?["kind"] as? String == "configuration", "\(document)")
    }

    @Test func gpsdDownIsUnavailableInJSONToo() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let port = try GPSFake.freePort()
        let environment = AirlocBinary.environment(home: home.url, extra: ["AIRLOC_GPSD": "127.0.0.1:\(port)"])
        _ = try await AirlocBinary.run(["auth", "grant", "--always"], environment: environment)
        let result = try await AirlocBinary.run(["locate", "--provider", "gpsd", "--json"], environment: environment)
        #expect(result.status == 69, "\(result)")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        #expect((document["error"] as? [String: Any])?["kind"] as? String == "unavailable")
    }
}
