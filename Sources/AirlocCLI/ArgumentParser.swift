import Configuration

/// Every option name airloc knows, once: a command's spec, the parser and the code that
/// reads the parsed arguments all use these, so a misspelt name is a compile error
/// rather than a flag that is silently never set.
enum OptionName: String, Sendable, CaseIterable {
    case json
    case lat
    case lon
    case provider
    case count
    case offline
    case online
    case reduced
    case help
    case clear
    case always
    case units
    case timeout
    case source
    case scale
    case postal
    case output
    case near
    case limit
    case gpsd
    case from
    case format
    case country
    case config
    case watch
    case verbose
    case refresh
    case noReport = "no-report"
    case noClimate = "no-climate"
    case first
    case countries
    case air
    case verify
    case since
    case until
    case kind
    case before
    case dryRun = "dry-run"
    case force
}

/// One option a command accepts.
struct OptionSpec: Sendable {
    /// Long name without dashes ("lat").
    var name: OptionName
    /// Placeholder when the option takes a value ("DEGREES"); nil for a flag.
    var value: String?
    var help: String
    var short: Character?

    /// True when the value is a path (placeholder PATH, FILE or DIR): shells complete
    /// file names for it.
    var takesPath: Bool { ["PATH", "FILE", "DIR"].contains(value ?? "") }

    static func flag(_ name: OptionName, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: nil, help: help, short: short)
    }

    static func value(_ name: OptionName, _ placeholder: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: placeholder, help: help, short: nil)
    }
}

/// One action of a command that takes them as its first word (`log run`, `auth grant`):
/// its own help, its own usage line, and the only options it accepts.
struct ActionSpec: Sendable {
    var name: String
    /// One line, for the command's help and the action's.
    var summary: String
    /// Usage after "airloc <command> <action>", e.g. "[--json]".
    var usage: String = ""
    /// More, for the action's own help.
    var discussion: String = ""
    /// Which of the command's options it takes; any other is a usage error.
    var options: [OptionName] = []
}

/// A command's interface: what `--help` prints and what the parser accepts.
struct CommandSpec: Sendable {
    var name: String
    var summary: String
    /// Usage line after "airloc <name>", e.g. "[--json] [--lat DEG --lon DEG]"; with
    /// actions, made from theirs.
    var usage: String = ""
    var discussion: String = ""
    var options: [OptionSpec]
    /// Positional arguments accepted (names for help); nil = any number.
    var maxPositionals: Int? = 0
    /// The actions it takes as its first word, and the one taken without a word.
    var actions: [ActionSpec] = []
    var defaultAction: String? = nil

    /// The actions' names, for completion and suggestions.
    var verbs: [String] { actions.map(\.name) }

    var usageLine: String {
        actions.isEmpty
            ? usage : actions.map { "\($0.name) \($0.usage)".trimmingTrailingSpaces() }.joined(separator: " | ")
    }

    /// The action's name a parsed command line gives: its first word, or the default.
    func actionName(_ arguments: ParsedArguments) -> String { arguments.positionals.first ?? defaultAction ?? "" }

    /// The action a parsed command line names (or the default one), if the command has it.
    func action(for arguments: ParsedArguments) -> ActionSpec? {
        let name = actionName(arguments)
        return actions.first { $0.name == name }
    }

    /// An option of this command given to an action that does not take it, as a usage
    /// error that names what it takes (`log status --format json` printed text and
    /// exited 0 before).
    func checkOptions(_ arguments: ParsedArguments) throws(CLIError) {
        guard let action = action(for: arguments) else { return }
        let own = Set(options.map(\.name))
        let allowed = Set(action.options)
        guard
            let stray = arguments.given.filter({ own.contains($0) && !allowed.contains($0) }).map(\.rawValue).sorted()
                .first
        else { return }
        let takes = action.options.map { "--\($0.rawValue)" }.joined(separator: ", ")
        let json = stray == "format" && allowed.contains(.json) ? " (for JSON: --json)" : ""
        throw .usage(
            "--\(stray) does not go with '\(name) \(action.name)'\(json); it takes \(takes.isEmpty ? "no options" : takes)",
            command: name)
    }

    static let commonOptions: [OptionSpec] = [
        .value(.config, "PATH", "read this configuration file instead of the user's (also AIRLOC_CONFIG)"),
        .flag(.help, short: "h", "show this help"),
    ]

    var allOptions: [OptionSpec] { options + Self.commonOptions }

    var helpText: String {
        var lines = ["\(summary)", "", "Usage: airloc \(name) \(usageLine)".trimmingTrailingSpaces()]
        if !actions.isEmpty {
            lines +=
                [""] + actions.map { "  " + $0.name.padding(toLength: 9, withPad: " ", startingAt: 0) + $0.summary }
            lines.append("See 'airloc \(name) ACTION --help' for an action's options.")
        }
        if !discussion.isEmpty { lines += ["", discussion] }
        return lines.joined(separator: "\n") + "\n" + Self.optionLines(allOptions)
    }

    /// `airloc <command> <action> --help`: the action's usage, what it does, and only its options.
    func helpText(for action: ActionSpec) -> String {
        var lines = [
            "\(action.summary)", "", "Usage: airloc \(name) \(action.name) \(action.usage)".trimmingTrailingSpaces(),
        ]
        if !action.discussion.isEmpty { lines += ["", action.discussion] }
        let taken = options.filter { action.options.contains($0.name) } + Self.commonOptions
        return lines.joined(separator: "\n") + "\n" + Self.optionLines(taken)
    }

    static func optionLines(_ options: [OptionSpec]) -> String {
        var lines = ["", "Options:"]
        for option in options {
            var left = "  "
            left += option.short.map { "-\($0), " } ?? ""
            left += "--\(option.name.rawValue)"
            if let value = option.value { left += " \(value)" }
            let padded = left.count < 26 ? left + String(repeating: " ", count: 26 - left.count) : left + "  "
            lines.append(padded + option.help)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The parsed command line of one command.
struct ParsedArguments: Sendable {
    var values: [OptionName: String] = [:]
    var flags: Set<OptionName> = []
    var positionals: [String] = []

    func has(_ flag: OptionName) -> Bool { flags.contains(flag) }
    /// Every option given, flag or value.
    var given: Set<OptionName> { flags.union(values.keys) }
    func value(_ name: OptionName) -> String? { values[name] }
}

/// A deliberately small GNU-style parser: `--name value`, `--name=value`, `-h`, `--`
/// ends options. Negative numbers ("-33.9") are values, not options.
enum ArgumentParser {
    static func parse(_ arguments: [String], spec: CommandSpec) throws(CLIError) -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        var optionsEnded = false
        let byName = Dictionary(spec.allOptions.map { ($0.name.rawValue, $0) }, uniquingKeysWith: { a, _ in a })
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" || Double(argument) != nil {
                result.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var name: String
            var inlineValue: String?
            if argument.hasPrefix("--") {
                name = String(argument.dropFirst(2))
                if let eq = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
            } else {
                let letter = argument.dropFirst()
                guard letter.count == 1, let option = spec.allOptions.first(where: { $0.short == letter.first }) else {
                    throw .usage("unknown option '\(argument)'", command: spec.name)
                }
                name = option.name.rawValue
            }
            guard let option = byName[name] else {
                let hint = suggestion(for: name, among: spec.allOptions.map(\.name.rawValue)).map {
                    " (did you mean '--\($0)'?)"
                }
                throw .usage("unknown option '--\(name)'\(hint ?? "")", command: spec.name)
            }
            // A second --lat would silently replace the first: say so instead.
            guard result.values[option.name] == nil && !result.flags.contains(option.name) else {
                throw .usage("option '--\(name)' is given twice", command: spec.name)
            }
            if option.value != nil {
                if let inlineValue {
                    result.values[option.name] = inlineValue
                } else {
                    guard index < arguments.count else {
                        throw .usage("option '--\(name)' needs a value (\(option.value!))", command: spec.name)
                    }
                    result.values[option.name] = arguments[index]
                    index += 1
                }
            } else {
                guard inlineValue == nil else {
                    throw .usage("option '--\(name)' takes no value", command: spec.name)
                }
                result.flags.insert(option.name)
            }
        }
        if let max = spec.maxPositionals, result.positionals.count > max, !result.has(.help) {
            throw .usage("unexpected argument '\(result.positionals[max])'", command: spec.name)
        }
        return result
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.hasSuffix(" ") { copy.removeLast() }
        return copy
    }
}
