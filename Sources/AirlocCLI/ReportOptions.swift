import AirQuality
import Airloc
import Arguments
import Settings
import TerminalUI

/// How the user asked for an air report: its format, units, scale and cache use —
/// shared by `now`, `air` and `postal --air`.
///
/// Contract: flags override `[display]` and `[cache]` in the configuration; a
/// contradiction (`--json --format line`) or an unknown value is a usage error naming
/// the valid values.
struct ReportOptions: Sendable {
    var format = ReportFormat.text
    /// nil = the usual unit of the place's country.
    var units: TemperatureUnit?
    var scale = AQIScale.us
    var refresh = false
    var climate = true

    static let specs: [OptionSpec] = [
        .json.saying("print one JSON document (schema airloc.report/1, docs/json-schema.md)").orNext(),
        .format,
        .units,
        .scale,
        .refresh,
        .noClimate,
    ]

    static func parse(_ arguments: ParsedArguments, configuration: Settings, command: String)
        throws(CLIError) -> ReportOptions
    {
        var options = ReportOptions()
        options.format = try ReportFormat.parse(arguments, command: command)
        options.units = arguments.value(.units, as: TemperatureUnit.self) ?? configuration.units
        options.scale = arguments.value(.scale, as: AQIScale.self) ?? configuration.scale
        options.refresh = arguments.has(.refresh)
        options.climate = !arguments.has(.noClimate)
        return options
    }

    /// What the library is asked for.
    var request: AirReport.Request {
        AirReport.Request(units: units, scale: scale, refresh: refresh, climate: climate)
    }

    /// The temperature unit for a report about a place in `countryCode`.
    func temperatureUnit(countryCode: String?) -> TemperatureUnit {
        units ?? TemperatureUnit.usual(forCountryCode: countryCode)
    }
}

/// How a report is printed: the card, JSON, or one line.
enum ReportFormat: Sendable {
    case text
    case json
    case line

    static func parse(_ arguments: ParsedArguments, command: String) throws(CLIError) -> ReportFormat {
        switch arguments.value(.format) {
        case nil: return arguments.has(.json) ? .json : .text
        case "text":
            if arguments.has(.json) {
                throw .usage("--json and --format text contradict each other", command: command)
            }
            return .text
        case "json": return .json
        case "line":
            if arguments.has(.json) {
                throw .usage("--json and --format line contradict each other", command: command)
            }
            return .line
        case let other?:
            throw .usage("--format must be text, json or line, not '\(other.prefix(20))'", command: command)
        }
    }

    /// The report on stdout; its warnings (a stale answer standing in, no place nearby)
    /// are not the answer: on stderr, except in JSON, where they are part of the document.
    func print(_ report: AirReport, console: Console) {
        switch self {
        case .text: console.out(ReportText(console: console).render(report))
        case .json: console.out(ReportJSON(report).encoded())
        case .line: console.out(ReportLine.render(report) + "\n")
        }
        guard self != .json else { return }
        for warning in report.warnings { console.err(console.warning("airloc: warning: \(warning)") + "\n") }
    }
}
