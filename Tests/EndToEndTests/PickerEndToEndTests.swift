import Foundation
import TestSupport
import Testing

/// The picker in a real terminal (tmux): what a user types and sees, what is saved, and
/// that the terminal is left as it was on every way out.
@Suite(.enabled(if: ExternalTool.available("tmux", "python3")), .serialized)
struct PickerEndToEndTests {
    /// `airloc ARGS` in a terminal of its own, with a double for every service and a
    /// home of its own; the script records the terminal settings before and after and
    /// the exit status (files stty.before, stty.after, status).
    struct Picking {
        let double: HTTPDouble
        let home: TemporaryDirectory
        let terminal: TerminalSession

        /// `faults` are in place before airloc starts: added after, a fast airloc may
        /// already have its answer.
        init(_ arguments: String, faults: [String] = []) async throws {
            double = try await HTTPDouble.start(faults: faults)
            home = try TemporaryDirectory()
            var environment = AirlocBinary.environment(home: home.url, servicesAt: double)
            environment["PATH"] = "/usr/bin:/bin"
            // The inner shell's pid file lets a test signal airloc itself (exec keeps the pid).
            let script = """
                stty -a > stty.before
                bash -c 'echo $$ > pid; exec "\(AirlocBinary.path)" \(arguments)'
                echo $? > status
                stty -a > stty.after
                read -r forever
                """
            terminal = try await TerminalSession.start(script: script, environment: environment)
        }

        var placeFile: URL { home.file("state/airloc/place") }

        /// The exit status, once airloc ended, after checking the terminal settings are
        /// as before (the window size aside: a test may resize the window).
        func statusWithTerminalRestored() async throws -> String {
            let status = try await terminal.waitForFile("status")
            func settings(_ name: String) async throws -> String {
                try await terminal.waitForFile(name).replacing(/rows \d+; columns \d+;/, with: "")
            }
            #expect(try await settings("stty.after") == (try await settings("stty.before")))
            return status.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func stop() {
            terminal.stop()
            double.stop()
            home.remove()
        }
    }

    @Test func typeBackspaceCorrectATypoAndChoose() async throws {
        let picking = try await Picking("pick")
        defer { picking.stop() }
        let terminal = picking.terminal
        let idle = try await terminal.waitFor("Use current location")
        #expect(idle.contains("New York City") && idle.contains("Popular cities"))
        try await terminal.type("mun")
        let results = try await terminal.waitFor("Search: mun")
        let rows = results.split(separator: "\n").dropFirst(2).prefix(4).joined(separator: "\n")
        #expect(rows.contains("Munich"), "Munich among the first rows:\n\(results)")
        try await terminal.press("BSpace", "BSpace")
        try await terminal.waitFor("Popular cities")
        try await terminal.press("C-u")
        try await terminal.type("londn")
        let london = try await terminal.waitFor("› London")
        #expect(london.contains("England, United Kingdom"))
        try await terminal.press("Enter")
        #expect(try await picking.statusWithTerminalRestored() == "0")
        let report = try await terminal.waitFor("Air quality")
        #expect(report.contains("Chosen location · London, England, United Kingdom"), "\(report)")
        let saved = try String(contentsOf: picking.placeFile, encoding: .utf8)
        #expect(saved.contains("name=London\n") && saved.contains("country_code=GB\n"))
    }

    @Test(arguments: [("Escape", "1"), ("C-c", "130")])
    func cancellingSavesNothingAndRestoresTheTerminal(key: String, status: String) async throws {
        let picking = try await Picking("search")
        defer { picking.stop() }
        let terminal = picking.terminal
        try await terminal.waitFor("Use current location")
        try await terminal.type("par")
        try await terminal.waitFor("Search: par")
        try await terminal.press(key)
        #expect(try await picking.statusWithTerminalRestored() == status)
        #expect(!FileManager.default.fileExists(atPath: picking.placeFile.path), "nothing persisted")
        #expect(try picking.double.requests().isEmpty, "no report, no search online")
    }

    @Test(arguments: ["TERM", "SEGV"])
    func aSignalOrACrashStillRestoresTheTerminal(signal: String) async throws {
        let picking = try await Picking("pick")
        defer { picking.stop() }
        let terminal = picking.terminal
        try await terminal.waitFor("Use current location")
        let pid = try await terminal.waitForFile("pid").trimmingCharacters(in: .whitespacesAndNewlines)
        let killed = try await ChildProcess.run(
            "/bin/kill", ["-\(signal)", pid], environment: ["PATH": "/usr/bin:/bin"], timeout: 60)
        #expect(killed.status == 0)
        let code = signal == "TERM" ? "143" : "139"
        #expect(try await picking.statusWithTerminalRestored() == code)
        let screen = try await terminal.screen()
        #expect(!screen.contains("Popular cities"), "back on the main screen:\n\(screen)")
    }

    @Test func theOnlineFallbackIsMarkedAndTheTerminalAdaptsToItsSize() async throws {
        let picking = try await Picking("pick --no-report")
        defer { picking.stop() }
        let terminal = picking.terminal
        try await terminal.waitFor("Use current location")
        try await terminal.type("zzyzx")  // below the offline data's population cut
        let online = try await terminal.waitFor("· online")
        #expect(online.contains("Zzyzx") && online.contains("California"), "\(online)")
        try await terminal.tmux(["resize-window", "-t", "main", "-x", "40", "-y", "12"])
        let narrow = try await terminal.waitFor("› Zzyzx")
        for line in narrow.split(separator: "\n") { #expect(line.count <= 40, "\(line)") }
        try await terminal.press("Enter")
        #expect(try await picking.statusWithTerminalRestored() == "0")
        #expect(try String(contentsOf: picking.placeFile, encoding: .utf8).contains("name=Zzyzx\n"))
        #expect(try picking.double.requests().map(\.path) == ["/v1/search"], "debounced: one request for five keys")
    }

    @Test func withoutATerminalThePickerNeverOpens() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let environment = AirlocBinary.environment(home: home.url)
        let search = try await AirlocBinary.run(["search"], environment: environment, stdin: "")
        #expect(search.status == 64 && search.stderr.contains("expected a place name"), "\(search)")
        let pick = try await AirlocBinary.run(["pick"], environment: environment, stdin: "")
        #expect(pick.status == 64 && pick.stderr.contains("needs a terminal"), "\(pick)")
    }

    @Test func useAsksWhichOneOnATerminal() async throws {
        let picking = try await Picking("use Springfield")
        defer { picking.stop() }
        let question = try await picking.terminal.waitFor("Which one?")
        #expect(question.contains("3. Springfield, Illinois, United States"), "\(question)")
        try await picking.terminal.type("3")
        try await picking.terminal.press("Enter")
        #expect(try await picking.statusWithTerminalRestored() == "0")
        #expect(
            try String(contentsOf: picking.placeFile, encoding: .utf8).contains("display_name=Springfield, Illinois"))
    }

    @Test func useCurrentLocationRunsTheProviderChain() async throws {
        let picking = try await Picking("pick --no-climate")
        defer { picking.stop() }
        try await picking.terminal.waitFor("› Use current location")
        try await picking.terminal.press("Enter")
        // The chain asks for permission first, as 'airloc now' does on a terminal.
        try await picking.terminal.waitFor("airloc wants to use this device's location")
        try await picking.terminal.type("n")
        try await picking.terminal.press("Enter")
        #expect(try await picking.statusWithTerminalRestored() == "77", "denied, and no manual location")
        #expect(!FileManager.default.fileExists(atPath: picking.placeFile.path), "the current location is not saved")
    }

    @Test func aSlowAnswerShowsASpinnerThatIsGoneBeforeTheReport() async throws {
        let picking = try await Picking(
            "air Berlin --no-climate", faults: [#"{"path": "/v1/air-quality", "delay": 6}"#])
        defer { picking.stop() }
        try await picking.terminal.waitFor("Fetching air quality…")
        let report = try await picking.terminal.waitFor("Air quality  41")
        #expect(!report.contains("Fetching"), "\(report)")
        #expect(try await picking.statusWithTerminalRestored() == "0")
    }

    @Test func aFailedOnlineSearchSaysSoAndTheQueryStaysEditable() async throws {
        let picking = try await Picking("pick --no-report")
        defer { picking.stop() }
        try picking.double.addFault(#"{"path": "/v1/search", "status": 429, "reason": "minutely"}"#)
        try await picking.terminal.waitFor("Use current location")
        try await picking.terminal.type("zzyzx")
        let failed = try await picking.terminal.waitFor("the online search failed")
        #expect(failed.contains("rate limit") && failed.contains("Please try again in one minute."), "\(failed)")
        try await picking.terminal.press("C-u")
        try await picking.terminal.type("berl")
        try await picking.terminal.waitFor("› Berlin")
        try await picking.terminal.press("Escape")
        #expect(try await picking.statusWithTerminalRestored() == "1")
    }
}
