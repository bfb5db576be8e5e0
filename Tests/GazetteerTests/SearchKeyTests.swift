import Testing

@testable import Gazetteer

/// What a person types and what the index holds fold to the same key.
@Suite struct SearchKeyTests {
    @Test(arguments: [
        ("Köln", "koln"), ("KÖLN", "koln"), ("koln", "koln"), ("Straße", "strasse"), ("Saint-Étienne", "saint etienne"),
        ("St. Louis", "saint louis"), ("Saint Louis", "saint louis"), ("Ste-Foy", "sainte foy"),
        ("Mt. Vernon", "mount vernon"), ("L'Aquila", "laquila"), ("’s-Hertogenbosch", "s hertogenbosch"),
        ("  New   York ", "new york"), ("Łódź", "lodz"), ("Tromsø", "tromso"), ("Ærøskøbing", "aeroskobing"),
        ("Frankfurt (Oder)", "frankfurt oder"), ("ＴＯＫＹＯ", "tokyo"), ("Москва", "москва"), ("%00", "00"),
    ])
    func folding(text: String, key: String) {
        #expect(SearchKey.fold(text) == key)
    }

    @Test func aLoneAbbreviationBeingTypedStaysAPrefix() {
        // "st" on its own may be the start of "Stuttgart"; only "st" before a word is Saint.
        #expect(SearchKey.fold("St") == "st")
        #expect(SearchKey.fold("St.") == "st")
    }

    @Test(arguments: ["", "   ", "\u{0}\u{1}\u{7F}", "🙂🙂", "\"'\"", "\u{202E}\u{200F}", "\t\n"])
    func punctuationSymbolsAndControlsFoldToNothing(text: String) {
        #expect(SearchKey.fold(text).isEmpty)
    }

    @Test func latinScriptDetection() {
        #expect(SearchKey.isLatin("München"))
        #expect(SearchKey.isLatin("Bielsko-Biała 2"))
        #expect(!SearchKey.isLatin("Москва"))
        #expect(!SearchKey.isLatin("東京"))
    }
}
