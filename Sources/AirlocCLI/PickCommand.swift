import AirQuality
import Airloc
import Arguments
import Foundation
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
            .flag(.noReport, "only save the choice; print no air report"),
            .flag(.offline, "never ask the network while searching"),
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
        let popular = PopularCommand.places(in: gazetteer).map {
            Picker.PlaceRow(place: $0, distance: near.map($0.coordinate.distance(to:)))
        }
        var picker = Picker(popular: popular, online: !context.arguments.has(.offline)) { query in
            gazetteer.search(query, options: SearchOptions(limit: 50, near: near)).map { result in
                var typos = 0
                if case .typo(let count) = result.match { typos = count }
                return Picker.PlaceRow(place: result.place, typos: typos, distance: result.distance)
            }
        }
        DisplayWidth.prepare()
        guard RawTerminal.enter() else {
            throw CLIError(code: .ioError, message: "cannot switch the terminal to raw mode")
        }
        let outcome = await loop(&picker, context: context, near: near)
        RawTerminal.leave()

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
            context.console.err("Chosen: \(place.displayName) — saved as your manual location\n")
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

    /// Runs the picker until a row is chosen or it is cancelled.
    static func loop(_ picker: inout Picker, context: CommandContext, near: Coordinate?) async -> Picker.Action {
        let (events, continuation) = AsyncStream.makeStream(of: PickerEvent.self)
        let reader = KeyReader()
        reader.start(continuation)
        defer { reader.stop() }
        var online: Task<Void, Never>?
        defer { online?.cancel() }
        let styled = (context.environment["NO_COLOR"] ?? "").isEmpty && context.environment["TERM"] != "dumb"
        func redraw() {
            let size = RawTerminal.size()
            let view = PickerView(width: size.columns, height: size.rows, styled: styled)
            RawTerminal.draw(view.lines(picker), cursor: (1, view.cursorColumn(picker)))
        }
        redraw()
        for await event in events {
            let action: Picker.Action
            switch event {
            case .key(let key):
                action = picker.keyPressed(key, pageSize: max(1, RawTerminal.size().rows - 3))
            case .resize: action = .redraw
            case .onlineAnswered(let rows, let generation): action = picker.onlineAnswered(rows, generation: generation)
            case .onlineFailed(let message, let generation):
                action = picker.onlineFailed(message, generation: generation)
            case .inputClosed: return .cancel(.cancelled)
            }
            switch action {
            case .none: continue
            case .redraw: redraw()
            case .cancelOnlineAndRedraw:
                online?.cancel()
                redraw()
            case .searchOnline(let query, let generation):
                online?.cancel()
                online = Task {
                    // The seed's 300 ms debounce: only a pause in typing costs a request.
                    do { try await Task.sleep(for: .milliseconds(300)) } catch { return }
                    let outcome = await onlineSearch(query, configuration: context.configuration, near: near)
                    guard !Task.isCancelled else { return }
                    switch outcome {
                    case .success(let rows): continuation.yield(.onlineAnswered(rows, generation: generation))
                    case .failure(let error):
                        continuation.yield(.onlineFailed(error.description, generation: generation))
                    }
                }
                redraw()
            case .choose, .cancel:
                return action
            }
        }
        return .cancel(.cancelled)
    }

    static func onlineSearch(_ query: String, configuration: Settings, near: Coordinate?) async
        -> Result<[Picker.PlaceRow], WebError>
    {
        do {
            let places = try await OnlineSearch.places(query, count: 20, countryCode: nil, configuration: configuration)
            return .success(
                places.map { Picker.PlaceRow(place: $0, online: true, distance: near.map($0.coordinate.distance(to:))) }
            )
        } catch {
            return .failure(error)
        }
    }
}
