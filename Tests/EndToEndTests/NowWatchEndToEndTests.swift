import Foundation
import TestSupport
import Testing

/// `airloc now --watch` as the Raspberry Pi's screen and as a script's stream: a real gpsd
/// (gpsfake), the HTTP double for the air service.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "tmux")))
struct NowWatchEndToEndTests {
    /// Without a terminal, one report a line (compact JSON) when the reading or place
    /// changes — not one per fix — and SIGTERM ends it with 0.
    @Test func aScriptGetsOneReportPerChange() async throws {
        let world = try await AirlocWorld()
        defer { world.stop() }
        let watch = try RunningProcess(AirlocBinary.path, ["now", "--watch", "--json"], environment: world.environment)
        try await Poll.until("the first report") { watch.output.contains("\n") }
        // Several fixes arrive meanwhile (1 Hz); the reading does not change.
        try await Task.sleep(for: .seconds(3))
        watch.signal(SIGTERM)
        let result = try await watch.wait()
        #expect(result.status == 0 && !result.timedOut, "\(result)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 1, "one report while nothing changed: \(result.stdout)")
        try await JSONSchemaCheck.shared.check(stdout: result.stdout, command: ["now", "--watch", "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect((report["air_quality"] as? [String: Any])?["us_aqi"] as? Int == 41)
        #expect((report["location"] as? [String: Any])?["provider"] as? String == "gpsd")
    }

    /// On a terminal: the card on the alternate screen, redrawn in place (every second:
    /// the fix age); Ctrl-C gives the terminal back as it was, and exits 0.
    @Test func theScreenShowsTheCardAndIsRestoredOnExit() async throws {
        let world = try await AirlocWorld()
        defer { world.stop() }
        var environment = world.environment
        environment["PATH"] = "/usr/bin:/bin"
        let script = """
            echo before-the-watch
            stty -a > stty.before
            "\(AirlocBinary.path)" now --watch
            echo $? > status
            stty -a > stty.after
            sleep 120
            """
        let terminal = try await TerminalSession.start(script: script, environment: environment)
        defer { terminal.stop() }
        let card = try await terminal.waitFor("Your Location")
        #expect(card.contains("Berlin") && card.contains("Air quality  41  Good"), "\(card)")
        #expect(!card.contains("before-the-watch"), "the card is on a screen of its own")
        _ = try await terminal.waitFor(" s ago")
        try await Task.sleep(for: .seconds(2.5))
        let later = try await terminal.screen()
        #expect(later.components(separatedBy: "Your Location").count == 2, "redrawn in place, not appended: \(later)")
        try await terminal.press("C-c")
        #expect(try await terminal.waitForFile("status").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        let before = try await terminal.waitForFile("stty.before")
        let after = try await terminal.waitForFile("stty.after")
        #expect(before == after, "terminal settings restored")
        let back = try await terminal.screen()
        #expect(
            back.contains("before-the-watch") && !back.contains("Your Location"), "the user's screen is back: \(back)")
    }
}
