import Configuration

/// One option a command accepts.
struct OptionSpec: Sendable {
    /// Long name without dashes ("lat").
    var name: String
    /// Placeholder when the option takes a value ("DEGREES"); nil for a flag.
    var value: String?
    var help: String
    var short: Character?

    static func flag(_ name: String, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: nil, help: help, short: short)
    }

    static func value(_ name: String, _ placeholder: String, _ help: String) -> OptionSpec {
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

    static let commonOptions: [OptionSpec] = [
        .value("config", "PATH", "read this configuration file instead of the user's (also AIRLOC_CONFIG)"),
        .flag("help", short: "h", "show this help"),
    ]

    var allOptions: [OptionSpec] { options + Self.commonOptions }

    var helpText: String {
        var lines = ["\(summary)", "", "Usage: airloc \(name) \(usage)".trimmingTrailingSpaces()]
        if !discussion.isEmpty { lines += ["", discussion] }
        lines += ["", "Options:"]
        for option in allOptions {
            var left = "  "
            left += option.short.map { "-\($0), " } ?? ""
            left += "--\(option.name)"
            if let value = option.value { left += " \(value)" }
            let padded = left.count < 26 ? left + String(repeating: " ", count: 26 - left.count) : left + "  "
            lines.append(padded + option.help)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The parsed command line of one command.
struct ParsedArguments: Sendable {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    func has(_ flag: String) -> Bool { flags.contains(flag) }
    func value(_ name: String) -> String? { values[name] }
}

/// A deliberately small GNU-style parser: `--name value`, `--name=value`, `-h`, `--`
/// ends options. Negative numbers ("-33.9") are values, not options.
enum ArgumentParser {
    static func parse(_ arguments: [String], spec: CommandSpec) throws(CLIError) -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        var optionsEnded = false
        let byName = Dictionary(spec.allOptions.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
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
                name = option.name
            }
            guard let option = byName[name] else {
                let hint = suggestion(for: name, among: spec.allOptions.map(\.name)).map {
                    " (did you mean '--\($0)'?)"
                }
                throw .usage("unknown option '--\(name)'\(hint ?? "")", command: spec.name)
            }
            if option.value != nil {
                if let inlineValue {
                    result.values[name] = inlineValue
                } else {
                    guard index < arguments.count else {
                        throw .usage("option '--\(name)' needs a value (\(option.value!))", command: spec.name)
                    }
                    result.values[name] = arguments[index]
                    index += 1
                }
            } else {
                guard inlineValue == nil else {
                    throw .usage("option '--\(name)' takes no value", command: spec.name)
                }
                result.flags.insert(name)
            }
        }
        if let max = spec.maxPositionals, result.positionals.count > max, !result.has("help") {
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
