import Platform

/// A line of the card broken to fit a narrow terminal (a 60-column Pi screen).
///
/// Contract: lines that fit are left as they are. A longer one is broken at spaces,
/// never inside a value and its unit ("12.5 °C", "8.8 µg/m³" stay together), never
/// inside a style (escape sequences hold no space); widths are display columns of the
/// text without styles. Continuation lines are indented two columns past the line's own
/// indentation. A single word wider than the terminal is left whole (the terminal wraps it).
public enum CardWrap {
    /// `line` wrapped to `width` columns, the continuation indented under its text.
    public static func wrap(_ line: String, width: Int) -> [String] {
        guard width > 8, DisplayWidth.of(TerminalText.plain(line)) > width else { return [line] }
        let indent = String(line.prefix { $0 == " " })
        let continuation = indent + "  "
        var words: [String] = []
        for word in line.dropFirst(indent.count).split(separator: " ", omittingEmptySubsequences: false) {
            // A unit belongs to the number before it.
            let plain = TerminalText.plain(String(word))
            if let last = words.last, !last.isEmpty, plain.hasPrefix("°") || plain.hasPrefix("µ") {
                words[words.count - 1] = last + " " + word
            } else {
                words.append(String(word))
            }
        }
        var lines: [String] = []
        var current = indent
        var currentIsEmpty = true
        for word in words {
            let candidate = currentIsEmpty ? current + word : current + " " + word
            if currentIsEmpty || DisplayWidth.of(TerminalText.plain(candidate)) <= width {
                current = candidate
                currentIsEmpty = false
            } else {
                lines.append(current)
                current = continuation + word
            }
        }
        lines.append(current)
        return lines
    }
}
