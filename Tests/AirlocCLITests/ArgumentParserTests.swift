import Configuration
import Foundation
import Testing

@testable import AirlocCLI

@Suite struct ArgumentParserTests {
    @Test func parsesValuesFlagsAndNegativeNumbers() throws {
        let parsed = try ArgumentParser.parse(["--lat", "-33.9", "--lon=151.2", "--json"], spec: NowCommand.spec)
        #expect(parsed.value("lat") == "-33.9" && parsed.value("lon") == "151.2" && parsed.has("json"))
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

    @Test func missingValueIsAUsageError() {
        #expect(throws: CLIError.self) { try ArgumentParser.parse(["--lat"], spec: NowCommand.spec) }
    }

    @Test(arguments: [("91", "0"), ("abc", "0"), ("0", "nan"), ("0", "181"), ("inf", "0")])
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
