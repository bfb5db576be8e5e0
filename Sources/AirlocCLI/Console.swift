import Airloc
import Foundation
import Platform

/// Where output goes and how it may look.
///
/// Contract: results go to stdout, diagnostics to stderr; colour and emoji-free
/// styling are decided once per run: colour only when stdout is a TTY, `NO_COLOR` is
/// unset and the config does not say `never` (or says `always`).
struct Console: Sendable {
    var useColor: Bool
    var stdinIsTTY: Bool
    var stderrIsTTY: Bool

    init(environment: [String: String], color: Settings.ColorChoice) {
        let stdoutIsTTY = StandardStream.isTerminal(StandardStream.output)
        stdinIsTTY = StandardStream.isTerminal(StandardStream.input)
        stderrIsTTY = StandardStream.isTerminal(StandardStream.error)
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        switch color {
        case .always: useColor = !noColor
        case .never: useColor = false
        case .auto: useColor = stdoutIsTTY && !noColor && environment["TERM"] != "dumb"
        }
    }

    /// True when a person can answer a question: stdin and stderr are terminals.
    var isInteractive: Bool { stdinIsTTY && stderrIsTTY }

    /// Everything airloc prints goes through here: text from services may hold control
    /// characters (an escape that retitles or clears the terminal); only airloc's own
    /// styling passes (JSON documents hold none: control characters are escaped there).
    func out(_ text: String) { StandardStream.write(TerminalText.keepingStyles(text), to: StandardStream.output) }
    func err(_ text: String) { StandardStream.write(TerminalText.keepingStyles(text), to: StandardStream.error) }

    func bold(_ text: String) -> String { useColor ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    func dim(_ text: String) -> String { useColor ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
    func paint(_ text: String, color256: Int) -> String {
        useColor ? "\u{1B}[1;38;5;\(color256)m\(text)\u{1B}[0m" : text
    }
    func warning(_ text: String) -> String { useColor ? "\u{1B}[33m\(text)\u{1B}[0m" : text }
}
