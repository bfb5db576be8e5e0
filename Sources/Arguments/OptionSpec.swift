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
    /// Which of the command's options it takes; any other is a usage error.
    public var options: [OptionName] = []

    public init(
        name: String, summary: String, operands: String = "", required: [OptionName] = [], discussion: String = "",
        options: [OptionName] = []
    ) {
        (self.name, self.summary, self.operands, self.required) = (name, summary, operands, required)
        (self.discussion, self.options) = (discussion, options)
    }
}
