import Platform

/// One option, declared once: its long name, the placeholder of its value (nil: a flag),
/// its help, and, for a typed value, what its text must be and what it means
/// (``OptionReader``). A program declares each as a static member (`extension OptionSpec {
/// static let limit = OptionSpec.value("limit", "N", "at most N results") }`); a command
/// lists it in its spec, the parser accepts it, and the code reads it, all by that one
/// declaration, so a misspelt name is a compile error and the help, the check and the type
/// cannot disagree. Two options are the same option when their names are.
package struct OptionSpec: Hashable, Sendable {
    /// Long name without dashes ("lat").
    package let rawValue: String
    /// Placeholder when the option takes a value ("DEGREES"); nil for a flag.
    package var value: String?
    package var help: String
    package var short: Character?
    /// How a usage line writes it beside the next option (``Usage``).
    package var grouping = Grouping.alone
    /// What its value must be, and what it means; nil: any text.
    package var reader: OptionReader?

    /// The option named `rawValue`, as a flag without help (to look one up by name).
    package init(_ rawValue: String) { (self.rawValue, self.help) = (rawValue, "") }

    package init(rawValue: String, value: String?, help: String, short: Character?) {
        (self.rawValue, self.value, self.help, self.short) = (rawValue, value, help, short)
    }

    /// The option itself, where code reads its name (`option.name.rawValue`).
    package var name: OptionSpec { self }

    /// True when the value is a path (placeholder PATH, FILE or DIR): shells complete
    /// file names for it.
    package var takesPath: Bool { ["PATH", "FILE", "DIR"].contains(value ?? "") }

    package static func flag(_ name: String, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(rawValue: name, value: nil, help: help, short: short)
    }

    package static func value(_ name: String, _ placeholder: String, _ help: String) -> OptionSpec {
        OptionSpec(rawValue: name, value: placeholder, help: help, short: nil)
    }

    /// The same option, with help in a command's own words (`--json`'s schema).
    package func saying(_ help: String) -> OptionSpec {
        var copy = self
        copy.help = help
        return copy
    }

    /// The same option, its value checked and read by `reader`.
    package func reading(_ reader: OptionReader) -> OptionSpec {
        var copy = self
        copy.reader = reader
        return copy
    }

    package static func == (a: OptionSpec, b: OptionSpec) -> Bool { a.rawValue == b.rawValue }
    package func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// The options every command takes (``CommandSpec/commonOptions``).
    package static let help = OptionSpec.flag("help", short: "h", "show this help")
    package static let config = OptionSpec.value(
        "config", "PATH", "read this configuration file instead of the user's (also AIRLOC_CONFIG)")
}

/// An option's name where only the name matters (an action's list, the parser's keys).
package typealias OptionName = OptionSpec

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
