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

    /// The ASCII path must give the key the Unicode path gives: the index was built with
    /// both, and a difference would make a plain query miss its name.
    @Test func asciiFastPathAgreesWithTheUnicodeFold() {
        let every = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self)
        var samples = [every, "St. Louis", "L'Aquila", "  New   York ", "frankfurt (oder)", "a`b", "x-1_2"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let length = Int.random(in: 0...12, using: &generator)
            samples.append(
                String(decoding: (0..<length).map { _ in UInt8.random(in: 0..<128, using: &generator) }, as: UTF8.self))
        }
        for sample in samples {
            #expect(SearchKey.foldASCII(sample) == SearchKey.foldUnicode(sample), "\(Array(sample.utf8))")
        }
    }

    @Test func latinScriptDetection() {
        #expect(SearchKey.isLatin("München"))
        #expect(SearchKey.isLatin("Bielsko-Biała 2"))
        #expect(!SearchKey.isLatin("Москва"))
        #expect(!SearchKey.isLatin("東京"))
    }

    /// Issue 17: each script folded the way its readers type it.
    @Test func otherScriptsFoldAsTheirReadersType() {
        #expect(SearchKey.fold("МОСКВА") == SearchKey.fold("москва"))
        #expect(
            SearchKey.fold("ΑΘΗΝΑ") == SearchKey.fold("Αθήνα") && SearchKey.fold("Αθηνα") == SearchKey.fold("Αθήνα"))
        #expect(SearchKey.fold("القَاهِرَة") == SearchKey.fold("القاهرة"), "Arabic vowel marks")
        #expect(SearchKey.fold("יְרוּשָׁלַיִם") == SearchKey.fold("ירושלים"), "Hebrew points")
        #expect(SearchKey.fold("東京") == "東京")
        // Hangul by its letters: the syllables typed so far are a prefix of the name,
        // even mid-syllable ("서우" on the way to "서울").
        // The index compares bytes.
        #expect(Array(SearchKey.fold("서울").utf8).starts(with: Array(SearchKey.fold("서우").utf8)))
    }

    @Test func aHanCharacterCountsAsTwoLetters() {
        #expect(SearchKey.typedLength("東京") == 4)
        #expect(SearchKey.typedLength(SearchKey.fold("서울")) == 4)
        #expect(SearchKey.typedLength("moscow") == 6 && SearchKey.typedLength("моск") == 4)
        #expect(Gazetteer.isSearchable("北") && !Gazetteer.isSearchable("M") && !Gazetteer.isSearchable("М"))
    }
}
