/// Text made safe for a terminal: what came from outside (a service's place name, an
/// error body, an IP service's message) must not retitle, clear or reprogram the user's
/// terminal.
///
/// Contract: ``plain(_:)`` removes every C0 control character except line feed and tab,
/// DEL, and every C1 control character (U+0080-U+009F, which some terminals read as
/// ESC [ and friends). ``keepingStyles(_:)`` does the same but keeps airloc's own
/// styling sequences — SGR codes 0, 1, 2, 33 and 1;38;5;N (bold, dim, reset, yellow, a
/// 256-colour foreground) — so coloured output built by airloc passes and nothing else
/// that could move the cursor, clear the screen or set a title does. ``quoted(_:limit:)``
/// and ``oneLine(_:)`` are for a log line: what came from a message (a payload's field, a
/// topic) is shown with every control character, line break and bidirectional override
/// escaped (`\n`, `\u{202E}`), so it can neither forge a line of its own nor turn the
/// line around, and cut to ``quotedLimit`` characters.
public enum TerminalText {
    /// Characters of foreign text a log line quotes at most (docs/collector.md).
    public static let quotedLimit = 64

    /// `text` quoted for a log line: `'…'`, escaped as ``oneLine(_:)`` escapes it, cut to
    /// `limit` characters (then ending in `…`).
    public static func quoted(_ text: String, limit: Int = quotedLimit) -> String {
        var scalars = text.unicodeScalars.prefix(limit + 1)
        let cut = scalars.count > limit
        if cut { scalars = scalars.prefix(limit) }
        let shown = oneLine(String(String.UnicodeScalarView(scalars)))
        return "'" + shown + (cut ? "…" : "") + "'"
    }

    /// `text` with every control character (line feed and tab included), DEL, C1 control
    /// and bidirectional formatting character written as an escape: one line that reads
    /// in its own order.
    public static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var output = ""
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                output.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            default: output += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return output
    }

    /// True when `text` holds nothing ``oneLine(_:)`` would escape: no control, line break
    /// or bidirectional formatting character.
    public static func isPlain(_ text: String) -> Bool { !text.unicodeScalars.contains(where: needsEscape) }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value) || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value) || value == 0x200E || value == 0x200F || value == 0x061C
            || value == 0x2028 || value == 0x2029
    }

    /// `text` without its control characters (line feed and tab kept): safe on any terminal.
    public static func plain(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.filter { !isControl($0) })
        return String(scalars)
    }

    /// `text` with airloc's own styling sequences kept and every other control removed.
    public static func keepingStyles(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        let input = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        var index = 0
        while index < input.count {
            let scalar = input[index]
            if scalar == "\u{1B}", let length = styleLength(input, at: index) {
                output.append(contentsOf: input[index..<index + length])
                index += length
                continue
            }
            if !isControl(scalar) { output.append(scalar) }
            index += 1
        }
        return String(output)
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value == 0x0A || value == 0x09 { return false }
        return value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value)
    }

    /// The length of one of airloc's own SGR sequences starting at `start`, or nil.
    static func styleLength(_ input: [Unicode.Scalar], at start: Int) -> Int? {
        guard start + 2 < input.count, input[start + 1] == "[" else { return nil }
        var end = start + 2
        var parameters = ""
        while end < input.count, end - start < 16, input[end] != "m" {
            let scalar = input[end]
            guard ("0"..."9").contains(scalar) || scalar == ";" else { return nil }
            parameters.unicodeScalars.append(scalar)
            end += 1
        }
        guard end < input.count, input[end] == "m" else { return nil }
        let allowed = ["0", "1", "2", "33"].contains(parameters) || isPaletteColour(parameters)
        return allowed ? end - start + 1 : nil
    }

    /// "1;38;5;N" with N 0-255.
    static func isPaletteColour(_ parameters: String) -> Bool {
        guard parameters.hasPrefix("1;38;5;"), let colour = Int(parameters.dropFirst(7)) else { return false }
        return (0...255).contains(colour)
    }
}
