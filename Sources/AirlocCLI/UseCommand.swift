import Airloc
import Arguments
import Gazetteer
import Geo
import TerminalUI

/// `airloc use`: choose the place whose air you see when no GPS fix is at hand.
enum UseCommand {
    static let spec = CommandSpec(
        name: "use", summary: "Choose a place as your manual location (or show or clear the choice)",
        operands: "[PLACE... [--first] | --lat DEG --lon DEG | --clear]", operandOptions: [.first, .lat, .lon, .clear],
        discussion: """
            Saves the place in $XDG_STATE_HOME/airloc/place. The provider chain's manual step
            ([location] providers, default "gpsd, manual") answers with it, and 'airloc search'
            ranks namesakes near it. It takes precedence over [location] in the configuration
            files; --lat/--lon on a command take precedence over it. Without arguments: show the
            current choice.

            PLACE is searched offline as in 'airloc search' ("Paris", "Springfield, MO", "Londn").
            When it names several places of similar size (Springfield), airloc asks on a terminal
            and refuses elsewhere, listing them (exit 65) — unless --first takes the best match.
            Exit status: 0 saved, shown or cleared; 65 no such place, or ambiguous; 1 cancelled;
            74 the state file cannot be written; 64 bad usage.
            """,
        options: CoordinateArguments.specs + [
            .first,
            .clear,
            .json.saying("print JSON (schema airloc.use/1, docs/json-schema.md)"),
        ],
        maxPositionals: nil)

    static let command = Command(spec: spec) { context throws(CLIError) in try run(context) }

    typealias Outcome = UseJSON.Outcome

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let name = arguments.positionals.joined(separator: " ").trimmingCharacters(in: .whitespaces)
        let coordinate = try CoordinateArguments.parse(arguments, command: spec.name)
        let given = [!name.isEmpty, coordinate != nil, arguments.has(.clear)].filter { $0 }.count
        guard given <= 1 else { throw .usage("give only one of a place, --lat/--lon and --clear", command: spec.name) }
        if arguments.has(.clear) {
            do { try ChosenPlace.clear(in: context.configuration.directories.state) } catch {
                throw CLIError(code: .ioError, message: "\(error)")
            }
            report(nil, action: .cleared, context: context)
            return .ok
        }
        let gazetteer = try context.loadGazetteer()
        let place: Place
        if let coordinate {
            place = ChosenPlace.point(coordinate, in: gazetteer)
        } else if !name.isEmpty {
            place = try choose(name, gazetteer: gazetteer, context: context)
        } else {
            guard let chosen = context.configuration.chosenPlace else {
                report(nil, action: .none, context: context)
                return .ok
            }
            report(chosen.resolved(in: gazetteer), action: .shown, context: context)
            return .ok
        }
        do { try ChosenPlace(place: place).save(in: context.configuration.directories.state) } catch {
            throw CLIError(code: .ioError, message: "cannot save the chosen place: \(error)")
        }
        report(place, action: .saved, context: context)
        return .ok
    }

    /// The place `name` means: the best match, after asking (terminal) or refusing
    /// (elsewhere) when several places of similar size share the name.
    static func choose(_ name: String, gazetteer: Gazetteer, context: CommandContext) throws(CLIError) -> Place {
        guard Gazetteer.isSearchable(name) else {
            throw .usage("a place name needs at least 2 letters or digits", command: spec.name)
        }
        let near = context.configuration.searchCentre
        let results = gazetteer.search(name, options: SearchOptions(limit: 10, near: near))
        guard let first = results.first else {
            throw CLIError(code: .dataError, message: "no place named \"\(name.prefix(80))\"; try 'airloc search'")
        }
        let namesakes = Namesakes.among(results)
        guard namesakes.count > 1, !context.arguments.has(.first) else { return first.place }
        let list = PlaceText.list(namesakes)
        guard context.console.isInteractive else {
            throw CLIError(
                code: .dataError,
                message: "\"\(name.prefix(80))\" names several places; say which (e.g. "
                    + "\"\(namesakes[0].name), \(namesakes[0].admin1.isEmpty ? namesakes[0].country : namesakes[0].admin1)\")"
                    + " or take the first with --first:\n\(list)")
        }
        context.console.err(
            "\"\(name)\" names several places:\n\(list)\nWhich one? [1-\(namesakes.count), Enter = 1, q = cancel] ")
        let answer = (readLine(strippingNewline: true) ?? "q").trimmingCharacters(in: .whitespaces)
        if answer.isEmpty { return namesakes[0] }
        guard let number = Int(answer), (1...namesakes.count).contains(number) else {
            throw CLIError(code: .cancelled, message: "nothing chosen")
        }
        return namesakes[number - 1]
    }

    static func report(_ place: Place?, action: Outcome, context: CommandContext) {
        let console = context.console
        if context.arguments.has(.json) {
            console.out(JSONDocument.encode(UseJSON(place: place, action: action)))
            return
        }
        console.out(PlaceText(console: console).render(place, chosen: action))
    }
}
