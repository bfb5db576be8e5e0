import Platform

/// What an option's value must be, and what it means: the parser's check before a command
/// runs (``CommandSpec/checkValues(_:)``), and the typed value the command reads
/// (``ParsedArguments/value(_:as:)``). Declared with the option, once.
///
/// Contract: `read` returns nil for text the option does not take; the usage error then
/// says "--NAME must be EXPECTED, not 'TEXT'", with the nearest of `choices` when one is
/// close. A value that passed the check reads the same at the call site.
package struct OptionReader: Sendable {
    /// What the value must be, as the usage error says it ("a whole number from 1 to 100").
    package var expected: String
    /// The words it takes, for "did you mean" (a choice's raw values); empty otherwise.
    package var choices: [String] = []
    /// The value of `text`, or nil when the option does not take it.
    package var read: @Sendable (String) -> (any Sendable)?

    package init(expected: String, choices: [String] = [], read: @escaping @Sendable (String) -> (any Sendable)?) {
        (self.expected, self.choices, self.read) = (expected, choices, read)
    }

    /// A whole number in `range`.
    package static func integer(in range: ClosedRange<Int>, expected: String) -> OptionReader {
        OptionReader(expected: expected) { text in Int(text).flatMap { range.contains($0) ? $0 : nil } }
    }

    /// A finite number in `range`.
    package static func number(in range: ClosedRange<Double>, expected: String) -> OptionReader {
        OptionReader(expected: expected) { text in
            Double(text).flatMap { $0.isFinite && range.contains($0) ? $0 : nil }
        }
    }

    /// One of a set of words, the raw values of `type` ("metric or imperial").
    package static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(_ type: Choice.Type)
        -> OptionReader where Choice.RawValue == String
    {
        let words = type.allCases.map(\.rawValue)
        return OptionReader(expected: Usage.alternatives(words), choices: words) { Choice(rawValue: $0) }
    }

    /// The usage error for `text` given to `option`.
    func problem(_ text: String, option: OptionSpec) -> String {
        let hint = choices.isEmpty ? nil : suggestion(for: text, among: choices)
        return "--\(option.rawValue) must be \(expected), not '\(text.prefix(40))'"
            + (hint.map { " (did you mean '\($0)'?)" } ?? "")
    }
}

extension ParsedArguments {
    /// The value of `option` as its reader reads it (nil: not given). The parser checked
    /// it before the command ran; a value that does not read is nil, never a crash. The
    /// type is always written: inferred, it could make `value(.output)` a typed read.
    package func value<Value>(_ option: OptionSpec, as type: Value.Type) -> Value? {
        guard let text = value(option) else { return nil }
        return option.reader?.read(text) as? Value
    }
}

extension CommandSpec {
    /// Every typed value given, checked by its option's reader: the first that does not
    /// read is a usage error naming what it must be. The action named declares what its
    /// options mean (`log export --format` and `log plot --format` take different words).
    package func checkValues(_ arguments: ParsedArguments) throws(CLIError) {
        let own = action(for: arguments)?.own ?? []
        let declared = own + allOptions.filter { option in !own.contains(option) }
        for option in declared {
            guard let reader = option.reader, let text = arguments.value(option) else { continue }
            if reader.read(text) == nil { throw .usage(reader.problem(text, option: option), command: name) }
        }
    }
}
