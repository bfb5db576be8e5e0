/// Usage lines written from the option declarations, so that a line cannot drift from
/// what the parser accepts (`--units U` where the option says UNITS).
///
/// Contract: options in declaration order, each in brackets unless required; options
/// declared ``OptionSpec/Grouping/withNext`` share a bracket with the next one ("[--lat
/// DEG --lon DEG]"), ``OptionSpec/Grouping/orNext`` are alternatives to it ("[--json |
/// --format FORMAT]"). `--help` and `--config`, which every command takes, are left out.
package enum Usage {
    /// "run, status, export, prune or plot".
    package static func alternatives(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + words.last!
    }

    package static func line(_ options: [OptionSpec], required: [OptionName] = []) -> String {
        var parts: [String] = []
        var group: [String] = []
        var joiner = " "
        for (index, option) in options.enumerated() {
            let word = "--\(option.name.rawValue)" + (option.value.map { " \($0)" } ?? "")
            group.append(word)
            let continues = option.grouping != .alone && index + 1 < options.count
            if continues {
                joiner = option.grouping == .orNext ? " | " : " "
                continue
            }
            let text = group.joined(separator: joiner)
            parts.append(group.count == 1 && required.contains(option.name) ? text : "[\(text)]")
            group = []
        }
        return parts.joined(separator: " ")
    }
}

extension OptionSpec {
    /// How the option is written in a usage line beside the one declared after it.
    package enum Grouping: Sendable {
        case alone
        /// Given together with the next: one bracket ("--lat DEG --lon DEG").
        case withNext
        /// An alternative to the next: one bracket, " | " between.
        case orNext
    }

    /// This option, given together with the next one declared.
    package func withNext() -> OptionSpec {
        var copy = self
        copy.grouping = .withNext
        return copy
    }

    /// This option, an alternative to the next one declared.
    package func orNext() -> OptionSpec {
        var copy = self
        copy.grouping = .orNext
        return copy
    }
}
