import Foundation
import TestSupport
import Testing

/// The contract scripts rely on, command by command, under every kind of trouble: the
/// exit status is the one docs/cli.md's table gives for that outcome, `--json` prints one
/// document with its schema (checked against docs/schema/ by ``AirlocBinary``) and, on
/// failure, an `error` with that status; in text mode stdout holds nothing but the
/// answer (diagnostics go to stderr).
@Suite(.enabled(if: ExternalTool.available("python3", "gpsfake")))
struct FaultMatrixTests {
    /// What the web services do wrong, for every request.
    enum ServiceFault: String, CaseIterable, Sendable {
        case rateLimited, serverError, garbage, slow

        var rule: String {
            switch self {
            case .rateLimited: return #"{"path": "*", "status": 429, "reason": "Hourly API request limit exceeded"}"#
            case .serverError: return #"{"path": "*", "status": 500}"#
            case .garbage: return #"{"path": "*", "mode": "garbage"}"#
            case .slow: return #"{"path": "*", "delay": 60}"#
            }
        }

        /// docs/cli.md: 75 when trying later may help (rate limit, 5xx, timeout), 69 when
        /// it will not (an answer that cannot be read); doctor warns on a rate limit.
        var expected: [([String], Int32)] {
            let later: Int32 = self == .garbage ? 69 : 75
            return [
                (["now"], later), (["air", "Berlin"], later), (["search", "Qxzzyplugh"], later),
                (["postal", "DE", "39167"], later), (["doctor"], self == .rateLimited ? 0 : 69),
            ]
        }
    }

    /// A manual location (nothing sensed: no authorization or gpsd involved) and a short
    /// service deadline, so that the slow service costs seconds, not minutes.
    static let manualConfig =
        "[location]\nproviders = manual\nlatitude = 52.52\nlongitude = 13.40\n[services]\ntimeout = 2\n"

    @Test(arguments: ServiceFault.allCases)
    func serviceFaults(fault: ServiceFault) async throws {
        let double = try await HTTPDouble.start(faults: [fault.rule])
        defer { double.stop() }
        for (arguments, status) in fault.expected {
            try await Self.expectContract(arguments, status: status, config: Self.manualConfig) { home in
                AirlocBinary.environment(home: home, servicesAt: double)
            }
        }
    }

    @Test func locationTroubleBadInputAndBadConfiguration() async throws {
        let port = try GPSFake.freePort()  // nothing listens: gpsd is down
        let gpsdDown = { (home: URL) in
            AirlocBinary.environment(home: home, extra: ["AIRLOC_GPSD": "127.0.0.1:\(port)"])
        }
        // Not authorized (no terminal to ask on): sensing commands refuse.
        for arguments in [["now"], ["locate"]] {
            try await Self.expectContract(arguments, status: 77, environment: gpsdDown)
        }
        // Authorized, gpsd down.
        for (arguments, status) in [(["now"], Int32(69)), (["locate"], 69), (["locate", "--provider", "gpsd"], 69)] {
            try await Self.expectContract(arguments, status: status, grant: true, environment: gpsdDown)
        }
        // No manual location where only that was asked for: a configuration matter.
        for arguments in [["locate", "--provider", "manual"], ["now", "--provider", "manual"]] {
            try await Self.expectContract(arguments, status: 78, environment: gpsdDown)
        }
        // Bad input.
        for (arguments, status) in [
            (["reverse", "91", "0"], Int32(64)), (["reverse", "0x10", "0"], 64), (["air", "Qqqqzzxxw"], 65),
            (["postal", "US", "9021"], 65), (["postal", "Narnia", "12345"], 64), (["now", "--timeout", "0"], 64),
            (["locate", "--lat", "91", "--lon", "0"], 64), (["search", "Berlin", "--limit", "x"], 64),
        ] {
            try await Self.expectContract(arguments, status: status, environment: gpsdDown)
        }
        // A bad configuration file stops every command with its file and line.
        let bad = "[location]\nlatitude = 95\nlongitude = 1\n"
        for arguments in [
            ["now"], ["air", "Berlin"], ["locate"], ["search", "Berlin"], ["postal", "US", "90210"],
            ["reverse", "1", "1"], ["doctor"], ["popular"], ["use"], ["auth", "status"], ["data", "info"],
        ] {
            try await Self.expectContract(arguments, status: 78, config: bad, environment: gpsdDown)
        }
    }

    /// Runs `arguments` twice in a fresh home (with `--json` and without) and checks the
    /// contract for an expected exit `status`.
    static func expectContract(
        _ arguments: [String], status: Int32, config: String? = nil, grant: Bool = false,
        environment: (URL) -> [String: String]
    ) async throws {
        for json in [true, false] {
            let home = try TemporaryDirectory()
            defer { home.remove() }
            let env = environment(home.url)
            if let config {
                let directory = home.url.appendingPathComponent("config/airloc")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try config.write(to: directory.appendingPathComponent("airloc.conf"), atomically: true, encoding: .utf8)
            }
            if grant {
                let granted = try await AirlocBinary.run(["auth", "grant", "--always"], environment: env)
                #expect(granted.status == 0, "\(granted)")
            }
            let result = try await AirlocBinary.run(arguments + (json ? ["--json"] : []), environment: env)
            let shown = "airloc \(arguments.joined(separator: " "))\(json ? " --json" : "")"
            #expect(result.status == status, "\(shown): \(result)")
            if status != 0 {
                // doctor's findings are its answer: the failed checks are on stdout.
                let reason =
                    arguments[0] == "doctor"
                    ? result.stdout.lowercased().contains("fail") : result.stderr.contains("Error: ")
                #expect(reason, "\(shown): the reason, for people: \(result)")
            }
            if json {
                let document = try #require(
                    try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                    "\(shown): one JSON document: \(result)")
                let error = document["error"] as? [String: Any]
                if status == 0 || status == 1 {
                    #expect(error == nil, "\(shown): \(result)")
                } else {
                    #expect(error?["code"] as? Int == Int(status), "\(shown): \(result)")
                    #expect(error?["retryable"] as? Bool == (status == 75), "\(shown)")
                }
            } else {
                for marker in ["Error:", "warning", "airloc:", "Usage:"] {
                    #expect(!result.stdout.contains(marker), "\(shown): a diagnostic on stdout: \(result)")
                }
            }
        }
    }
}
