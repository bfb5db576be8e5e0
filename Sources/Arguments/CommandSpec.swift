import Foundation

/// A command's interface: what `--help` prints and what the parser accepts.
package struct CommandSpec: Sendable {
    package var name: String
    package var summary: String
    /// What comes before the options in the usage line ("QUERY...", "LAT LON", or forms
    /// such as "PLACE... | --lat DEG --lon DEG"); the options it names are not repeated.
    package var operands: String = ""
    /// Options written in `operands`.
    package var operandOptions: [OptionName] = []
    package var discussion: String = ""
    package var options: [OptionSpec]
    /// Positional arguments accepted (names for help); nil = any number.
    package var maxPositionals: Int? = 0
    /// The actions it takes as its first word, and the one taken without a word.
    package var actions: [ActionSpec] = []
    package var defaultAction: String? = nil

    package init(
        name: String, summary: String, operands: String = "", operandOptions: [OptionName] = [],
        discussion: String = "", options: [OptionSpec], maxPositionals: Int? = 0, actions: [ActionSpec] = [],
        defaultAction: String? = nil
    ) {
        (self.name, self.summary, self.operands, self.operandOptions) = (name, summary, operands, operandOptions)
        self.discussion = discussion
        (self.options, self.maxPositionals, self.actions, self.defaultAction) =
            (options + Self.merged(actions), maxPositionals, actions, defaultAction)
    }

    /// The actions' own options as the command lists them: one line per option, saying which
    /// action takes it ("with export and plot: rows from T on"; "with export: …; with plot: …").
    static func merged(_ actions: [ActionSpec]) -> [OptionSpec] {
        var names: [OptionName] = []
        for action in actions {
            for option in action.own where !names.contains(option.name) { names.append(option.name) }
        }
        return names.map { name in
            let declared = actions.compactMap { action in action.own.first { $0.name == name }.map { (action.name, $0) }
            }
            var merged = declared[0].1
            let helps = declared.map(\.1.help)
            if Set(helps).count == 1 {
                let takers = declared.map(\.0)
                let who =
                    takers.count == 1 ? takers[0] : takers.dropLast().joined(separator: ", ") + " and " + takers.last!
                merged.help = "with \(who): \(helps[0])"
            } else {
                merged.help = declared.map { "with \($0.0): \($0.1.help)" }.joined(separator: "; ")
            }
            return merged
        }
    }

    /// The actions' names, for completion and suggestions.
    package var verbs: [String] { actions.map(\.name) }

    /// Usage after "airloc <name>": the operands and the options (``Usage``); with actions,
    /// theirs, separated by " | ".
    package var usageLine: String {
        guard actions.isEmpty else {
            return actions.map { "\($0.name) \(usage(of: $0))".trimmingTrailingSpaces() }.joined(separator: " | ")
        }
        let written = Usage.line(options.filter { !operandOptions.contains($0.name) })
        return [operands, written].filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// Usage after "airloc <name> <action>".
    package func usage(of action: ActionSpec) -> String {
        let written = Usage.line(options.filter { action.options.contains($0.name) }, required: action.required)
        return [action.operands, written].filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// The action's name a parsed command line gives: its first word, or the default.
    package func actionName(_ arguments: ParsedArguments) -> String {
        arguments.positionals.first ?? defaultAction ?? ""
    }

    /// The action a parsed command line names (or the default one), if the command has it.
    package func action(for arguments: ParsedArguments) -> ActionSpec? {
        let name = actionName(arguments)
        return actions.first { $0.name == name }
    }

    /// An option of this command given to an action that does not take it, as a usage
    /// error that names what it takes (`log status --format json` printed text and
    /// exited 0 before).
    package func checkOptions(_ arguments: ParsedArguments) throws(CLIError) {
        guard let action = action(for: arguments) else { return }
        let own = Set(options.map(\.name))
        let allowed = Set(action.options)
        guard
            let stray = arguments.given.filter({ own.contains($0) && !allowed.contains($0) }).map(\.rawValue).sorted()
                .first
        else { return }
        let takes = action.options.map { "--\($0.rawValue)" }.joined(separator: ", ")
        let json = stray == "format" && allowed.contains(OptionName("json")) ? " (for JSON: --json)" : ""
        throw .usage(
            "--\(stray) does not go with '\(name) \(action.name)'\(json); it takes \(takes.isEmpty ? "no options" : takes)",
            command: name)
    }

    package static let commonOptions: [OptionSpec] = [.config, .help]

    package var allOptions: [OptionSpec] { options + Self.commonOptions }

    package var helpText: String {
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
    package func helpText(for action: ActionSpec) -> String {
        var lines = [
            "\(action.summary)", "",
            "Usage: airloc \(name) \(action.name) \(usage(of: action))".trimmingTrailingSpaces(),
        ]
        if !action.discussion.isEmpty { lines += ["", action.discussion] }
        // Its own options in its own words; the command's others as the command says them.
        let taken =
            options.filter { action.options.contains($0.name) }.map { option in
                action.own.first { $0.name == option.name } ?? option
            } + Self.commonOptions
        return lines.joined(separator: "\n") + "\n" + Self.optionLines(taken)
    }

    package static func optionLines(_ options: [OptionSpec]) -> String {
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
package struct ParsedArguments: Sendable {
    package var values: [OptionName: String] = [:]
    package var flags: Set<OptionName> = []
    package var positionals: [String] = []

    package init() {}

    package func has(_ flag: OptionName) -> Bool { flags.contains(flag) }
    /// Every option given, flag or value.
    package var given: Set<OptionName> { flags.union(values.keys) }
    package func value(_ name: OptionName) -> String? { values[name] }
}
