import AirQuality
import Arguments
import Logbook
import Testing

@testable import AirlocCLI

/// Typed options, declared once (Options.swift): the parser's check before a command runs,
/// in the action's own meaning, and the typed value the command then reads.
@Suite struct OptionReaderTests {
    /// The usage error `arguments` get from `spec`'s check, or nil when they pass.
    static func problem(_ arguments: [String], _ spec: CommandSpec) throws -> String? {
        let parsed = try ArgumentParser.parse(arguments, spec: spec)
        do {
            try spec.checkValues(parsed)
            return nil
        } catch {
            #expect(error.code == .usage)
            return error.message
        }
    }

    @Test func aValueOutsideWhatTheOptionTakesIsAUsageErrorSayingWhatItMustBe() throws {
        #expect(
            try Self.problem(["Paris", "--limit", "0"], SearchCommand.spec)
                == "--limit must be a whole number from 1 to 100, not '0'")
        #expect(try Self.problem(["Paris", "--limit", "x"], SearchCommand.spec) != nil)
        #expect(try Self.problem(["Paris", "--limit", "100"], SearchCommand.spec) == nil)
        #expect(
            try Self.problem(["--provider", "gpds"], LocateCommand.spec)
                == "--provider must be gpsd, ip or manual, not 'gpds' (did you mean 'gpsd'?)")
        #expect(try Self.problem(["--timeout", "0.05"], LocateCommand.spec) != nil)
        #expect(try Self.problem(["--timeout", "nan"], LocateCommand.spec) != nil)
        #expect(try Self.problem(["--timeout", "2.5"], LocateCommand.spec) == nil)
        #expect(try Self.problem(["--count", "-1", "--watch"], LocateCommand.spec) != nil)
        #expect(
            try Self.problem(["--units", "kelvin"], NowCommand.spec)
                == "--units must be metric or imperial, not 'kelvin'")
    }

    @Test func anActionSaysWhatItsOwnOptionsMean() throws {
        // `log export --format` and `log plot --format` share a name and take other words.
        #expect(try Self.problem(["plot", "--format", "png"], LogCommand.spec) == nil)
        #expect(
            try Self.problem(["plot", "--format", "csv"], LogCommand.spec)
                == "--format must be svg or png, not 'csv' (did you mean 'svg'?)")
        #expect(try Self.problem(["export", "--format", "csv"], LogCommand.spec) == nil)
        #expect(
            try Self.problem(["export", "--format", "png"], LogCommand.spec)
                == "--format must be ndjson, csv, gpx or geojson, not 'png'")
        #expect(try Self.problem(["plot", "--width", "63"], LogCommand.spec) != nil)
    }

    @Test func theCommandReadsTheValueTheCheckPassed() throws {
        let parsed = try ArgumentParser.parse(
            ["export", "--format", "gpx", "--kind", "air"], spec: LogCommand.spec)
        #expect(parsed.value(.exportFormat, as: LogExport.Format.self) == .gpx)
        #expect(parsed.value(.kind, as: LogExport.Kind.self) == .air)
        let report = try ArgumentParser.parse(["--units", "imperial", "--scale", "eu"], spec: NowCommand.spec)
        #expect(report.value(.units, as: TemperatureUnit.self) == .imperial)
        #expect(report.value(.scale, as: AQIScale.self) == .eu)
        #expect(report.value(.units, as: Int.self) == nil, "the wrong type reads nothing, never a crash")
        let search = try ArgumentParser.parse(["Paris", "--limit", "7"], spec: SearchCommand.spec)
        #expect(search.value(.limit, as: Int.self) == 7)
    }
}
