import Arguments
import Foundation
import TerminalUI
import Testing

@testable import AirlocCLI

/// `log export --since/--until` and `log prune --before`: what a script passes as T.
@Suite struct LogTimeTests {
    let now = Date(timeIntervalSince1970: 1_796_043_600)  // 2026-11-30T13:00:00Z

    @Test func readsTimesDatesAndAges() throws {
        let cases: [(String, Double)] = [
            ("2026-11-30T12:00Z", 1_796_040_000),  // the example the error message gives
            ("2026-11-30T12:00:00Z", 1_796_040_000),
            ("2026-11-30T12:00:00.500Z", 1_796_040_000.5),
            ("2026-11-30T13:00:00+01:00", 1_796_040_000),
            ("2026-11-30T12:00", 1_796_040_000),  // no zone: UTC
            ("2026-11-30", 1_795_996_800),
            ("90m", 1_796_038_200),
            ("24h", 1_795_957_200),
            ("7d", 1_795_438_800),
        ]
        for (text, expected) in cases {
            let parsed = try LogTime.parse(text, option: "--since", now: now)
            #expect(abs(parsed.timeIntervalSince1970 - expected) < 0.001, "\(text)")
        }
    }

    @Test func anythingElseIsAUsageErrorThatShowsTheForms() {
        for text in ["yesterday", "2026-11-31", "12:00", "-5h", "2026-11-30T25:00Z"] {
            #expect(throws: CLIError.self) { try LogTime.parse(text, option: "--since", now: now) }
            do {
                _ = try LogTime.parse(text, option: "--since", now: now)
            } catch {
                #expect(error.code == .usage)
                #expect(error.message.contains("2026-11-30T12:00Z"), "\(error.message)")
            }
        }
    }
}
