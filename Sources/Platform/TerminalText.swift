/// Text made safe for a terminal: what came from outside (a service's place name, an
/// error body, an IP service's message) must not retitle, clear or reprogram the user's
/// terminal.
///
/// Contract: ``plain(_:)`` removes every C0 control character except line feed and tab,
/// DEL, and every C1 control character (U+0080-U+009F, which some terminals read as
/// ESC [ and friends). ``keepingStyles(_:)`` does the same but keeps airloc's own
/// styling sequences — SGR codes 0, 1, 2, 33 and 1;38;5;N (bold, dim, reset, yellow, a
/// 256-colour foreground) — so coloured output built by airloc passes and nothing else
/// that could move the cursor, clear the screen or set a title does.
public enum TerminalText {
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
