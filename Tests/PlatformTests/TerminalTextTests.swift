import Platform
import Testing

/// What a hostile service answer could do to a terminal, and what is left of it.
@Suite struct TerminalTextTests {
    static let hostile = "Mis\u{1B}]0;pwned\u{07}soula\u{1B}[2J\u{9B}31m\u{7F}\r"

    @Test func controlCharactersFromOutsideAreRemoved() {
        let plain = TerminalText.plain(Self.hostile)
        #expect(plain == "Mis]0;pwnedsoula[2J31m")
        #expect(!plain.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(TerminalText.plain("Zürich\tline\n") == "Zürich\tline\n", "text, tabs and line ends stay")
    }

    @Test func airlocsOwnStylingPassesAndNothingElse() {
        let styled =
            "\u{1B}[1mBerlin\u{1B}[0m \u{1B}[1;38;5;40m41 Good\u{1B}[0m \u{1B}[2mdim\u{1B}[0m \u{1B}[33mwarn\u{1B}[0m"
        #expect(TerminalText.keepingStyles(styled) == styled)
        // Conceal, cursor moves, a title, screen clearing: removed even when they look like styling.
        let hostile = "a\u{1B}[8mhidden\u{1B}[0m\u{1B}[10;10H\u{1B}]2;t\u{07}\u{1B}[2J b"
        let kept = TerminalText.keepingStyles(hostile)
        #expect(kept == "a[8mhidden\u{1B}[0m[10;10H]2;t[2J b", "\(kept.debugDescription)")
    }

    /// Foreign text in a log line: one line, in its own order, cut short.
    @Test func quotedTextIsOneLineInItsOwnOrderAndCutShort() {
        #expect(TerminalText.quoted("x'\nairloc: forged") == #"'x'\nairloc: forged'"#)
        #expect(TerminalText.quoted("evil\u{202E}gpj.exe") == #"'evil\u{202E}gpj.exe'"#)
        #expect(TerminalText.quoted("a\u{0}\r\tb") == #"'a\u{0}\r\tb'"#)
        let long = TerminalText.quoted(String(repeating: "d", count: 5000))
        #expect(long == "'" + String(repeating: "d", count: TerminalText.quotedLimit) + "…'")
        #expect(TerminalText.isPlain("Zürich 2") && !TerminalText.isPlain("a\nb") && !TerminalText.isPlain("\u{2066}"))
    }

    /// A URL or connection string a person wrote never shows its password.
    @Test func passwordsAreMaskedInWhatIsShown() {
        #expect(CredentialText.masked("mqtt://pi:s3cret@broker:1883") == "mqtt://pi:***@broker:1883")
        #expect(CredentialText.masked("'mqtts://u:p@h' is not") == "'mqtts://u:***@h' is not")
        #expect(CredentialText.masked("host=db password=s3cret user=x") == "host=db password=*** user=x")
        #expect(
            CredentialText.masked("postgresql://a:b@db/x and http://h/p") == "postgresql://a:***@db/x and http://h/p")
        #expect(CredentialText.masked("mqtt://broker:1883") == "mqtt://broker:1883")
    }
}
