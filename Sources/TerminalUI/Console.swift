import Foundation
import Platform
import Settings

/// Where output goes and how it may look.
///
/// Contract: results go to stdout, diagnostics to stderr; colour and emoji-free
/// styling are decided once per run: colour only when stdout is a TTY, `NO_COLOR` is
/// unset and the config does not say `never` (or says `always`).
public struct Console: Sendable {
    /// Colour: a terminal, and no NO_COLOR.
    public var useColor: Bool
    /// Standard input is a terminal.
    public var stdinIsTTY: Bool
    /// Standard error is a terminal.
    public var stderrIsTTY: Bool
    /// Standard output is a terminal.
    public var stdoutIsTTY: Bool
    /// The terminal's width when stdout is one: text for people is wrapped to it. Output
    /// to a pipe or file is never wrapped (a script reads whole lines).
    public var width: Int?

    /// The console of this process, as `environment` and `color` say.
    public init(environment: [String: String], color: Settings.ColorChoice) {
        stdoutIsTTY = StandardStream.isTerminal(StandardStream.output)
        width = StandardStream.columns(StandardStream.output)
        stdinIsTTY = StandardStream.isTerminal(StandardStream.input)
        stderrIsTTY = StandardStream.isTerminal(StandardStream.error)
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        switch color {
        case .always: useColor = !noColor
        case .never: useColor = false
        case .auto:
            useColor = StandardStream.isTerminal(StandardStream.output) && !noColor && environment["TERM"] != "dumb"
        }
    }

    /// True when a person can answer a question: stdin and stderr are terminals.
    public var isInteractive: Bool { stdinIsTTY && stderrIsTTY }

    /// Everything airloc prints goes through here: text from services may hold control
    /// characters (an escape that retitles or clears the terminal); only airloc's own
    /// styling passes (JSON documents hold none: control characters are escaped there).
    public func out(_ text: String) {
        StandardStream.write(TerminalText.keepingStyles(text), to: StandardStream.output)
    }
    /// Writes `text` to stderr, made safe for the terminal.
    public func err(_ text: String) { StandardStream.write(TerminalText.keepingStyles(text), to: StandardStream.error) }

    /// Full-screen output (`now --watch` on a terminal): the alternate screen with the
    /// cursor hidden, so the user's scrollback is untouched and restored on leaving.
    public func enterScreen() { StandardStream.write("\u{1B}[?1049h\u{1B}[?25l", to: StandardStream.output) }
    /// Back to the normal screen, the cursor shown.
    public func leaveScreen() { StandardStream.write("\u{1B}[?25h\u{1B}[?1049l", to: StandardStream.output) }

    /// Redraws the screen with `text` in one write, each line overwriting the one before
    /// (no clearing first: no flicker). The text is sanitised as ``out(_:)``'s is; only the
    /// cursor movements added here pass.
    public func redraw(_ text: String) {
        var frame = "\u{1B}[H"
        for line in TerminalText.keepingStyles(text).split(separator: "\n", omittingEmptySubsequences: false) {
            frame += line + "\u{1B}[K\n"
        }
        StandardStream.write(frame + "\u{1B}[J", to: StandardStream.output)
    }

    /// `text` in bold, with colour on.
    public func bold(_ text: String) -> String { useColor ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    /// `text` dimmed, with colour on.
    public func dim(_ text: String) -> String { useColor ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
    /// `text` in a 256-colour foreground, with colour on.
    public func paint(_ text: String, color256: Int) -> String {
        useColor ? "\u{1B}[1;38;5;\(color256)m\(text)\u{1B}[0m" : text
    }
    /// `text` in yellow, with colour on.
    public func warning(_ text: String) -> String { useColor ? "\u{1B}[33m\(text)\u{1B}[0m" : text }
}
