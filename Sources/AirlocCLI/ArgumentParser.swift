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

    static func flag(_ name: OptionName, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: nil, help: help, short: short)
    }

    static func value(_ name: OptionName, _ placeholder: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: placeholder, help: help, short: nil)
    }
}

/// A command's interface: what `--help` prints and what the parser accepts.
struct CommandSpec: Sendable {
    var name: String
    var summary: String
    /// Usage line after "airloc <name>", e.g. "[--json] [--lat DEG --lon DEG]".
    var usage: String
    var discussion: String = ""
    var options: [OptionSpec]
    /// Positional arguments accepted (names for help); nil = any number.
    var maxPositionals: Int? = 0
    /// The actions a command takes as its first word (`auth grant`), for completion.
    var verbs: [String] = []

    static let commonOptions: [OptionSpec] = [
        .value(.config, "PATH", "read this configuration file instead of the user's (also AIRLOC_CONFIG)"),
        .flag(.help, short: "h", "show this help"),
    ]

    var allOptions: [OptionSpec] { options + Self.commonOptions }

    var helpText: String {
        var lines = ["\(summary)", "", "Usage: airloc \(name) \(usage)".trimmingTrailingSpaces()]
        if !discussion.isEmpty { lines += ["", discussion] }
        lines += ["", "Options:"]
        for option in allOptions {
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
