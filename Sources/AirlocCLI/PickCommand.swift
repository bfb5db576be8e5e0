import Airloc
import Arguments
import Gazetteer
import Geo
import TerminalUI
import Web

/// `airloc pick` (and `airloc search` without a query on a terminal): the seeds' search
/// sheet in the terminal — type, see places as you type, choose one.
enum PickCommand {
    static let spec = CommandSpec(
        name: "pick", summary: "Choose a place interactively: search as you type (needs a terminal)",
        discussion: """
            A query line and a list that follows each keystroke, answered offline. With nothing
            typed: "Use current location" and the popular cities. When nothing matches offline,
            Open-Meteo's geocoding is asked after a 300 ms pause in typing (not with --offline);
            its rows say "online".

            Keys: type, Backspace, Ctrl-U (clear), ↑ ↓ (or Ctrl-P Ctrl-N), PgUp PgDn, Tab (complete
            to the highlighted name), Enter (choose), Esc (cancel, exit 1), Ctrl-C (cancel, exit 130).
            Choosing a place saves it as your manual location (as 'airloc use') and prints its air
            report (not with --no-report); "Use current location" runs 'airloc now'.
            The list is drawn on stderr; the report goes to stdout. Without a terminal (a pipe,
            a script) the picker never opens: use 'airloc search QUERY' and 'airloc use PLACE'.
            """,
        options: [
            .noReport,
            .offline.saying("never ask the network while searching"),
        ] + ReportOptions.specs)

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        guard context.console.isInteractive else {
            throw .usage(
                "the picker needs a terminal; in scripts use 'airloc search QUERY' and 'airloc use PLACE'",
                command: spec.name)
        }
        let options = try ReportOptions.parse(
            context.arguments, configuration: context.configuration, command: spec.name)
        let gazetteer = try context.loadGazetteer()
        let near = context.configuration.searchCentre
        let popular = PopularPlaces.places(in: gazetteer).map {
            Picker.PlaceRow(place: $0, distance: near.map($0.coordinate.distance(to:)))
        }
        var picker = Picker(popular: popular, online: !context.arguments.has(.offline)) { query in
            gazetteer.search(query, options: SearchOptions(limit: 50, near: near)).map { result in
                var typos = 0
                if case .typo(let count) = result.match { typos = count }
                return Picker.PlaceRow(place: result.place, typos: typos, distance: result.distance)
            }
        }
        let styled = (context.environment["NO_COLOR"] ?? "").isEmpty && context.environment["TERM"] != "dumb"
        let session = PickerSession(styled: styled) { query throws(WebError) in
            try await OnlineSearch.places(query, count: 20, countryCode: nil, configuration: context.configuration)
                .map { Picker.PlaceRow(place: $0, online: true, distance: near.map($0.coordinate.distance(to:))) }
        }
        guard let outcome = await session.run(&picker) else {
            throw CLIError(code: .ioError, message: "cannot switch the terminal to raw mode")
        }

        switch outcome {
        case .cancel(let leaving):
            return leaving == .interrupted ? .interrupted : .cancelled
        case .choose(.currentLocation):
            return try await NowCommand.run(context)
        case .choose(.place(let row)):
            let place = row.place.id == 0 ? row.place : (gazetteer.place(id: row.place.id) ?? row.place)
            do { try ChosenPlace(place: place).save(in: context.configuration.directories.state) } catch {
                throw CLIError(code: .ioError, message: "cannot save the chosen place: \(error)")
            }
            context.console.err("Chosen: \(place.displayName) — now and air use it; log run keeps to [location]\n")
            guard !context.arguments.has(.noReport) else { return .ok }
            let fix = Fix(coordinate: place.coordinate, source: .manual, accuracySource: "place \(place.displayName)")
            let report = await AirReport.make(
                fix: fix, provider: "chosen", attempts: [], accuracy: .full, context: context,
                configuration: context.configuration, gazetteer: gazetteer, options: options, chosenPlace: place)
            options.format.print(report, console: context.console)
            return AirReport.exitCode(for: report, console: context.console)
        default:
            return .software
        }
    }
}
