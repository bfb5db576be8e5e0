import Foundation
import TestSupport
import Testing

/// `airloc now --watch` as the Raspberry Pi's screen and as a script's stream: a real gpsd
/// (gpsfake), the HTTP double for the air service.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "tmux")))
struct NowWatchEndToEndTests {
    /// A world whose gpsd loops a journey: 30 s of fixes in Berlin, then 30 s in
    /// Potsdam. Each change of place is an event the test waits for; the 30 fixes
    /// between two of them are what must print nothing.
    static func journey() async throws -> AirlocWorld {
        let scratch = try TemporaryDirectory()
        let log = scratch.file("journey.nmea")
        try await SyntheticTrack.writeJourney(
            from: (52.5200, 13.4050), to: (52.3989, 13.0657), to: log)
        return try await AirlocWorld(log: log, keeping: scratch)
    }

    static func place(_ line: Substring) -> String? {
        let report = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return (report?["place"] as? [String: Any])?["name"] as? String
    }

    /// Without a terminal, one report a line (compact JSON) when the reading or place
    /// changes — not one per fix — and SIGTERM ends it with 0. The third line (back in
    /// Berlin) comes after some 30 fixes in Potsdam: they were read, and printed nothing.
    @Test func aScriptGetsOneReportPerChange() async throws {
        let world = try await Self.journey()
        defer { world.stop() }
        let watch = try ChildProcess(AirlocBinary.path, ["now", "--watch", "--json"], environment: world.environment)
        try await watch.waitForOutput("three reports: a place, the other place, the first again") {
            $0.split(separator: "\n").count >= 3
        }
        watch.signal(SIGTERM)
        let result = try await watch.wait()
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n")
        try await JSONSchemaCheck.shared.check(stdout: result.stdout, command: ["now", "--watch", "--json"])
        let places = lines.map { Self.place($0) ?? "?" }
        #expect(Set(places) == ["Berlin", "Potsdam"], "\(result.stdout)")
        // A line per change: no two lines in a row for the same place.
        #expect(!zip(places, places.dropFirst()).contains { $0 == $1 }, "a line without a change: \(places)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect((report["air_quality"] as? [String: Any])?["us_aqi"] as? Int == 41)
        #expect((report["location"] as? [String: Any])?["provider"] as? String == "gpsd")
    }

    /// On a terminal: the card on the alternate screen, redrawn in place when the place
    /// changes (and every second: the fix age); Ctrl-C gives the terminal back as it
    /// was, and exits 0.
    @Test func theScreenShowsTheCardAndIsRestoredOnExit() async throws {
        let world = try await Self.journey()
        defer { world.stop() }
        var environment = world.environment
        environment["PATH"] = "/usr/bin:/bin"
        let script = """
            echo before-the-watch
            stty -a > stty.before
            "\(AirlocBinary.path)" now --watch
            echo $? > status
            stty -a > stty.after
            read -r forever
            """
        let terminal = try await TerminalSession.start(script: script, environment: environment)
        defer { terminal.stop() }
        let card = try await terminal.waitFor("Your Location")
        #expect(card.contains("Air quality  41  Good"), "\(card)")
        #expect(!card.contains("before-the-watch"), "the card is on a screen of its own")
        let first = card.contains("Potsdam") ? "Potsdam" : "Berlin"
        let other = first == "Berlin" ? "Potsdam" : "Berlin"
        let later = try await terminal.waitFor("Your Location · \(other)")
        #expect(later.components(separatedBy: "Your Location").count == 2, "redrawn in place, not appended: \(later)")
        #expect(!later.contains(first + ","), "the old place is gone from the screen: \(later)")
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
