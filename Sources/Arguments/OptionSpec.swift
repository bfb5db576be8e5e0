/// The long name of an option, without dashes ("lat"). A program declares its names once
/// as static members (`extension OptionName { static let lat = OptionName("lat") }`), so
/// a misspelt name is a compile error rather than a flag that is silently never set.
public struct OptionName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The options every command takes (``CommandSpec/commonOptions``).
    public static let help = OptionName("help")
    public static let config = OptionName("config")
}

/// One option a command accepts.
public struct OptionSpec: Sendable {
    /// Long name without dashes ("lat").
    public var name: OptionName
    /// Placeholder when the option takes a value ("DEGREES"); nil for a flag.
    public var value: String?
    public var help: String
    public var short: Character?
    /// How a usage line writes it beside the next option (``Usage``).
    public var grouping = Grouping.alone

    /// True when the value is a path (placeholder PATH, FILE or DIR): shells complete
    /// file names for it.
    public var takesPath: Bool { ["PATH", "FILE", "DIR"].contains(value ?? "") }

    public static func flag(_ name: OptionName, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: nil, help: help, short: short, grouping: .alone)
    }

    public static func value(_ name: OptionName, _ placeholder: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: placeholder, help: help, short: nil, grouping: .alone)
    }
}

/// One action of a command that takes them as its first word (`log run`, `auth grant`):
/// its own help, its own usage line, and the only options it accepts.
public struct ActionSpec: Sendable {
    public var name: String
    /// One line, for the command's help and the action's.
    public var summary: String
    /// What comes before the options in its usage line (usually nothing).
    public var operands: String = ""
    /// Options it cannot do without ("--from DIR"): written without brackets.
    public var required: [OptionName] = []
    /// More, for the action's own help.
    public var discussion: String = ""
    /// Which of the command's options it takes (its own included); any other is a usage error.
    public var options: [OptionName] = []
    /// The options it declares itself, with help in its own words: the command takes them
    /// too, and its help says which action each belongs to (``CommandSpec``).
    public var own: [OptionSpec] = []

    public init(
        name: String, summary: String, operands: String = "", required: [OptionName] = [], discussion: String = "",
        options: [OptionName] = [], own: [OptionSpec] = []
    ) {
        (self.name, self.summary, self.operands, self.required) = (name, summary, operands, required)
        (self.discussion, self.options, self.own) = (discussion, options + own.map(\.name), own)
    }
}

/// An action (`log export`) with what runs it: a command's actions are a list of these in
/// place of a switch over their names.
public struct ActionHandler<Context: Sendable>: Sendable {
    public var spec: ActionSpec
    public var run: @Sendable (Context) async throws(CLIError) -> ExitCode

    public init(_ spec: ActionSpec, run: @escaping @Sendable (Context) async throws(CLIError) -> ExitCode) {
        self.spec = spec
        self.run = run
    }

    /// Runs the action `arguments` name (or the command's default); an unknown one is a
    /// usage error with the nearest name.
    public static func run(
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
