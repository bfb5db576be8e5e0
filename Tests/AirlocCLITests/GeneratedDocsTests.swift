import Arguments
import Configuration
import Foundation
import ManualPages
import TerminalUI
import TestSupport
import Testing

@testable import AirlocCLI

/// The man pages and shell completions the package ships are generated from the parser's
/// own declarations: every command, option, action and configuration key is in them, and
/// the defaults airloc.conf(5) states are the ones config/airloc.conf gives.
@Suite struct GeneratedDocsTests {
    let commands = AirlocCommandLine.commands

    @Test func theManualHasEveryCommandAndOption() {
        let page = ManualPage.command(commands.map(\.spec))
        for command in commands {
            #expect(page.contains(".SS \"airloc \(Roff.roff(command.spec.name))\""), "\(command.spec.name)")
            for option in command.spec.allOptions {
                #expect(
                    page.contains("\\-\\-\(Roff.roff(option.name.rawValue))"),
                    "\(command.spec.name) --\(option.name)")
            }
        }
        #expect(page.hasPrefix(".\\\" Generated") && page.contains(".SH EXIT STATUS") && page.contains(".SH FILES"))
    }

    @Test func theConfigurationPageHasEveryKeyWithItsDefault() throws {
        let page = ManualPage.configuration()
        let declared = Set(ConfigurationKey.all.map { "\($0.section).\($0.name)" })
        #expect(Set(ConfigurationKey.defaults.keys) == declared, "a key without a stated default, or a stale one")
        for key in ConfigurationKey.all {
            #expect(page.contains("\\fB\(Roff.roff(key.name))\\fR = "), "\(key.name)")
        }
        // The example file's active lines give the same defaults.
        let example = try String(contentsOf: PackagePaths.file("config/airloc.conf"), encoding: .utf8)
        var section = ""
        for line in example.split(separator: "\n") {
            if line.hasPrefix("[") { section = line.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard !line.hasPrefix(";"), parts.count == 2 else { continue }
            #expect(ConfigurationKey.defaults["\(section).\(parts[0])"] == parts[1], "\(section).\(parts[0])")
        }
    }

    @Test func completionsKnowEveryCommandOptionAndAction() {
        let bash = ShellCompletion.bash(commands.map(\.spec))
        let zsh = ShellCompletion.zsh(commands.map(\.spec))
        let fish = ShellCompletion.fish(commands.map(\.spec))
        for command in commands {
            let spec = command.spec
            for script in [bash, zsh, fish] { #expect(script.contains(spec.name), "\(spec.name)") }
            for option in spec.allOptions {
                #expect(bash.contains("--\(option.name.rawValue)") && zsh.contains("'--\(option.name.rawValue)["))
                #expect(fish.contains("-l \(option.name.rawValue)"))
            }
            for verb in spec.verbs { #expect(bash.contains(verb) && zsh.contains(verb) && fish.contains("-a \(verb)")) }
        }
    }

    /// man-db renders both pages without a warning (groff's own check).
    @Test(.enabled(if: ExternalTool.available("man"))) func manRendersBothPagesWithoutWarnings() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for (name, page) in [
            ("airloc.1", ManualPage.command(commands.map(\.spec))), ("airloc.conf.5", ManualPage.configuration()),
        ] {
            let file = directory.file(name)
            try page.write(to: file, atomically: true, encoding: .utf8)
            let man = try #require(ExternalTool.path(of: "man"))
            let result = try await ChildProcess.run(
                man, ["--warnings", "-l", file.path],
                environment: [
                    "MANWIDTH": "80", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "MANPAGER": "cat", "PAGER": "cat",
                ])
            #expect(result.status == 0 && result.stderr.isEmpty, "\(name): \(result.stderr)")
            #expect(result.stdout.contains("airloc"))
        }
    }
}
