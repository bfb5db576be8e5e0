import Platform

/// A deliberately small GNU-style parser: `--name value`, `--name=value`, `-h`, `--`
/// ends options. Negative numbers ("-33.9") are values, not options.
package enum ArgumentParser {
    package static func parse(_ arguments: [String], spec: CommandSpec) throws(CLIError) -> ParsedArguments {
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
    package func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.hasSuffix(" ") { copy.removeLast() }
        return copy
    }
}
