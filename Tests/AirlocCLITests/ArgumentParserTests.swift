import Arguments
import Configuration
import Foundation
import Platform
import TerminalUI
import Testing

@testable import AirlocCLI

@Suite struct ArgumentParserTests {
    @Test func parsesValuesFlagsAndNegativeNumbers() throws {
        let parsed = try ArgumentParser.parse(["--lat", "-33.9", "--lon=151.2", "--json"], spec: NowCommand.spec)
        #expect(parsed.value(.lat) == "-33.9" && parsed.value(.lon) == "151.2" && parsed.has(.json))
    }

    @Test func unknownOptionSuggestsTheNearest() {
        do {
            _ = try ArgumentParser.parse(["--jsno"], spec: NowCommand.spec)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .usage)
            #expect(error.message == "unknown option '--jsno' (did you mean '--json'?)")
        }
    }

    @Test func aRepeatedOptionIsAUsageErrorNotALastOneWins() {
        do {
            _ = try ArgumentParser.parse(["--lat", "52", "--lat", "53", "--lon", "13"], spec: NowCommand.spec)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .usage && error.message == "option '--lat' is given twice")
        }
        #expect(throws: CLIError.self) { try ArgumentParser.parse(["--json", "--json"], spec: NowCommand.spec) }
    }

    @Test func contradictoryFormatsAreAUsageError() throws {
        for arguments in [["--format", "text", "--json"], ["--format", "line", "--json"]] {
            let parsed = try ArgumentParser.parse(arguments, spec: NowCommand.spec)
            #expect(throws: CLIError.self) { try ReportFormat.parse(parsed, command: "now") }
        }
        let agreeing = try ArgumentParser.parse(["--format", "json", "--json"], spec: NowCommand.spec)
        #expect(try ReportFormat.parse(agreeing, command: "now") == .json)
    }

    /// The usage line is written from the declarations: it names every option its command
    /// (or action) takes with its own placeholder, and nothing else.
    @Test func everyUsageLineNamesExactlyTheOptionsItsCommandAccepts() {
        for command in AirlocCommandLine.commands {
            let spec = command.spec
            let lines =
                spec.actions.isEmpty
                ? [(spec.usageLine, spec.options)]
                : spec.actions.map { action in
                    (spec.usage(of: action), spec.options.filter { action.options.contains($0.name) })
                }
            for (line, options) in lines {
                let named = Set(
                    line.split(whereSeparator: { " []|=".contains($0) }).filter { $0.hasPrefix("--") }.map(String.init))
                #expect(named == Set(options.map { "--" + $0.name.rawValue }), "airloc \(spec.name): \(line)")
                for option in options where option.value != nil {
                    #expect(line.contains("--\(option.name.rawValue) \(option.value!)"), "airloc \(spec.name): \(line)")
                }
            }
        }
        #expect(Usage.line([.flag("a", "").orNext(), .value("b", "B", "")]) == "[--a | --b B]")
        #expect(
            Usage.line([.value("a", "A", "").withNext(), .value("b", "B", "")], required: [])
                == "[--a A --b B]")
        #expect(
            Usage.line(
                [.value("from", "DIR", ""), .flag("x", "")], required: [OptionName("from")])
                == "--from DIR [--x]")
    }

    @Test func missingValueIsAUsageError() {
        #expect(throws: CLIError.self) { try ArgumentParser.parse(["--lat"], spec: NowCommand.spec) }
    }

    @Test(arguments: [
        ("91", "0"), ("abc", "0"), ("0", "nan"), ("0", "181"), ("inf", "0"), ("0x10", "0"), ("1e1", "0"),
        ("0", "0x1p4"),
    ])
    func impossibleCoordinatesAreUsageErrorsWithTheRange(lat: String, lon: String) {
        do {
            _ = try CoordinateArguments.parse(latitude: lat, longitude: lon, command: "now")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .usage)
            #expect(error.message.contains("90") || error.message.contains("180"))
        }
    }

    @Test func commandTyposGetASuggestion() async {
        #expect(await AirlocCommandLine.run(arguments: ["nwo"], environment: [:]) == 64)
        #expect(await AirlocCommandLine.run(arguments: ["--version"], environment: [:]) == 0)
        #expect(await AirlocCommandLine.run(arguments: ["now", "--help"], environment: [:]) == 0)
        #expect(suggestion(for: "nwo", among: ["now", "auth", "reverse"]) == "now")
    }
}

/// `airloc --help` lists every exit status airloc can end with.
struct OverviewExitCodeTests {
    @Test func theOverviewNamesEveryExitCode() {
        let overview = AirlocCommandLine.overview.replacingOccurrences(of: "\n", with: " ")
        for code in ExitCode.allCases where code != .ok && code != .software {
            #expect(overview.contains(" \(code.rawValue) "), "\(code) (\(code.rawValue)) is not in the overview")
        }
    }
}
