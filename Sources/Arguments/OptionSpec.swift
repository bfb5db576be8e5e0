import Platform

/// The long name of an option, without dashes ("lat"). A program declares its names once
/// as static members (`extension OptionName { static let lat = OptionName("lat") }`), so
/// a misspelt name is a compile error rather than a flag that is silently never set.
package struct OptionName: RawRepresentable, Hashable, Sendable {
    package let rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }
    package init(_ rawValue: String) { self.rawValue = rawValue }

    /// The options every command takes (``CommandSpec/commonOptions``).
    package static let help = OptionName("help")
    package static let config = OptionName("config")
}

/// One option a command accepts.
package struct OptionSpec: Sendable {
    /// Long name without dashes ("lat").
    package var name: OptionName
    /// Placeholder when the option takes a value ("DEGREES"); nil for a flag.
    package var value: String?
    package var help: String
    package var short: Character?
    /// How a usage line writes it beside the next option (``Usage``).
    package var grouping = Grouping.alone

    /// True when the value is a path (placeholder PATH, FILE or DIR): shells complete
    /// file names for it.
    package var takesPath: Bool { ["PATH", "FILE", "DIR"].contains(value ?? "") }

    package static func flag(_ name: OptionName, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: nil, help: help, short: short, grouping: .alone)
    }

    package static func value(_ name: OptionName, _ placeholder: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: placeholder, help: help, short: nil, grouping: .alone)
    }
}

/// One action of a command that takes them as its first word (`log run`, `auth grant`):
/// its own help, its own usage line, and the only options it accepts.
package struct ActionSpec: Sendable {
    package var name: String
    /// One line, for the command's help and the action's.
    package var summary: String
    /// What comes before the options in its usage line (usually nothing).
    package var operands: String = ""
    /// Options it cannot do without ("--from DIR"): written without brackets.
    package var required: [OptionName] = []
    /// More, for the action's own help.
    package var discussion: String = ""
    /// Which of the command's options it takes (its own included); any other is a usage error.
    package var options: [OptionName] = []
    /// The options it declares itself, with help in its own words: the command takes them
    /// too, and its help says which action each belongs to (``CommandSpec``).
    package var own: [OptionSpec] = []

    package init(
        name: String, summary: String, operands: String = "", required: [OptionName] = [], discussion: String = "",
        options: [OptionName] = [], own: [OptionSpec] = []
    ) {
        (self.name, self.summary, self.operands, self.required) = (name, summary, operands, required)
        (self.discussion, self.options, self.own) = (discussion, options + own.map(\.name), own)
    }
}

/// An action (`log export`) with what runs it: a command's actions are a list of these in
/// place of a switch over their names.
package struct ActionHandler<Context: Sendable>: Sendable {
    package var spec: ActionSpec
    package var run: @Sendable (Context) async throws(CLIError) -> ExitCode

    package init(_ spec: ActionSpec, run: @escaping @Sendable (Context) async throws(CLIError) -> ExitCode) {
        self.spec = spec
        self.run = run
    }

    /// Runs the action `arguments` name (or the command's default); an unknown one is a
    /// usage error with the nearest name.
    package static func run(
        _ actions: [ActionHandler], of command: CommandSpec, _ arguments: ParsedArguments, _ context: Context
    ) async throws(CLIError) -> ExitCode {
        let verb = command.actionName(arguments)
        guard let action = actions.first(where: { $0.spec.name == verb }) else {
            let hint = suggestion(for: verb, among: command.verbs)
            throw .usage(
                "unknown action '\(verb)'\(hint.map { " (did you mean '\($0)'?)" } ?? ""); expected "
                    + Usage.alternatives(command.verbs), command: command.name)
        }
        return try await action.run(context)
    }
}
