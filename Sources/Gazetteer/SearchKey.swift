import Foundation

/// The form in which names are indexed and queries are compared: what a person means
/// regardless of how they typed it.
///
/// Contract: `fold` is case-, diacritic-, width- and punctuation-insensitive and stable
/// (the same text always gives the same key, at build time and at query time):
/// "Köln" = "koln" = "KÖLN"; "Straße" = "strasse"; "Saint-Étienne" = "saint etienne";
/// "St. Louis" = "Saint Louis" ("st", "ste", "mt", "ft" before another word are
/// expanded); apostrophes vanish ("L'Aquila" = "laquila"); every other punctuation mark,
/// symbol or control character separates words; runs of spaces collapse; the result is
/// trimmed. Letters without a decomposition that people write plainly anyway are
/// mapped (ł→l, ø→o, æ→ae, đ→d, þ→th, ı→i). Other scripts keep their letters (without
/// combining marks), so "Москва" still finds Moscow when the data carries that name.
public enum SearchKey {
    /// The folded key of `text`.
    public static func fold(_ text: String) -> String {
        // Most queries are plain ASCII, where the Unicode decomposition changes nothing
        // and cost a tenth of a typo search; the two paths give the same key (tested).
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return expandAbbreviations(foldASCII(text)) }
        return expandAbbreviations(foldUnicode(text))
    }

    /// `fold` for ASCII text, byte by byte.
    static func foldASCII(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "`"):
                continue
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "A")...UInt8(ascii: "Z"):
                if pendingSpace {
                    out.append(UInt8(ascii: " "))
                    pendingSpace = false
                }
                out.append(byte | (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? 0x20 : 0))
            default:
                pendingSpace = !out.isEmpty
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `fold` for any text, before abbreviations are expanded.
    static func foldUnicode(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
            let properties = scalar.properties
            switch properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark, .format:
                continue
            default:
                break
            }
            if scalar == "'" || scalar == "\u{2019}" || scalar == "\u{02BC}" || scalar == "\u{02BB}"
                || scalar == "`" || scalar == "\u{2018}"
            {
                continue
            }
            guard properties.isAlphabetic || properties.numericType != nil else {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace {
                out.append(" ")
                pendingSpace = false
            }
            if let mapped = plainLetters[scalar] {
                out.append(contentsOf: mapped.unicodeScalars)
            } else if properties.changesWhenLowercased {
                out.append(contentsOf: properties.lowercaseMapping.unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Letters people replace by plain ones when typing, which NFKD does not decompose.
    private static let plainLetters: [Unicode.Scalar: String] = [
        "ß": "ss", "ẞ": "ss", "ł": "l", "Ł": "l", "ø": "o", "Ø": "o", "æ": "ae", "Æ": "ae", "œ": "oe",
        "Œ": "oe", "đ": "d", "Đ": "d", "ð": "d", "Ð": "d", "þ": "th", "Þ": "th", "ı": "i", "ħ": "h",
        "Ħ": "h", "ŧ": "t", "Ŧ": "t", "ŀ": "l", "Ŀ": "l", "ĸ": "k",
    ]

    /// Abbreviations expanded when another word follows: "St Louis" → "saint louis",
    /// while a lone "st" being typed stays a prefix of "stuttgart".
    private static let abbreviations: [Substring: String] = [
        "st": "saint", "ste": "sainte", "mt": "mount", "ft": "fort",
    ]

    private static func expandAbbreviations(_ folded: String) -> String {
        guard folded.contains(" ") else { return folded }
        var words = folded.split(separator: " ")
        var changed = false
        for index in words.indices.dropLast() {
            if let long = abbreviations[words[index]] {
                words[index] = Substring(long)
                changed = true
            }
        }
        return changed ? words.joined(separator: " ") : folded
    }

    /// How much of a name `folded` is, in letters: a character of the scripts written
    /// one syllable or word to a character (Han, kana, Hangul, Yi) counts two, so that
    /// "東京" is as much of a query as "Tokyo"'s first four letters and "北" may start
    /// one, while a single Latin letter still may not.
    public static func typedLength(_ folded: String) -> Int {
        var length = 0
        for character in folded {
            guard let scalar = character.unicodeScalars.first else { continue }
            switch scalar.value {
            case 0x1100...0x11FF, 0x2E80...0x2FDF, 0x3040...0x30FF, 0x3130...0x318F, 0x3400...0x4DBF,
                0x4E00...0x9FFF, 0xA000...0xA4CF, 0xAC00...0xD7AF, 0xF900...0xFAFF, 0x20000...0x3134F:
                length += 2
            default:
                length += 1
            }
        }
        return length
    }

    /// True when every letter of `name` is in the Latin script (digits, spaces and
    /// punctuation do not count): the names whose all-lower-case spelling marks a
    /// machine transliteration (``SearchIndexBuilder`` leaves those out).
    public static func isLatin(_ name: String) -> Bool {
        for scalar in name.unicodeScalars where scalar.properties.isAlphabetic {
            switch scalar.value {
            case 0x41...0x5A, 0x61...0x7A, 0xAA, 0xBA, 0xC0...0x24F, 0x250...0x2AF, 0x1E00...0x1EFF,
                0x2C60...0x2C7F, 0xA720...0xA7FF, 0xAB30...0xAB6F, 0xFF21...0xFF3A, 0xFF41...0xFF5A:
                continue
            default:
                return false
            }
        }
        return true
    }
}
