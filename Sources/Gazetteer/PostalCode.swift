import Foundation

/// What a person types as a postal code, checked before it goes anywhere.
///
/// Contract: ``normalise(_:)`` trims, upper-cases and collapses inner runs of spaces to
/// one, and keeps leading zeros (a code is text, not a number). ``check(_:regex:)``
/// accepts only letters A-Z, digits, single spaces and hyphens, at most 12 characters,
/// and, when the country has a GeoNames regex, a code that matches it; anything else is
/// a ``Problem`` — so nothing typed can add a path segment, a query or a fragment to a
/// request. ``outward(_:country:)`` is the part Zippopotam.us indexes for countries where
/// it knows only that part (GB "SW1A 1AA" → "SW1A", CA "M2M 1C8" → "M2M").
public enum PostalCode {
    /// Why a code cannot be looked up.
    public enum Problem: Error, Sendable, Equatable {
        case empty
        case tooLong(Int)
        case characters(String)
        case format
    }

    /// The longest code accepted (no country's is longer).
    public static let maximumLength = 12

    /// `text` trimmed, its inner spaces single, upper-cased: the form codes are compared in.
    public static func normalise(_ text: String) -> String {
        text.uppercased().split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// Countries whose postal data (Zippopotam.us, GeoNames) knows only the first part of
    /// a code, and what that part looks like: it is accepted on its own too.
    static let outwardPatterns: [String: String] = [
        "GB": "^[A-Z]{1,2}[0-9][A-Z0-9]?$", "CA": "^[A-Z][0-9][A-Z]$", "IE": "^[A-Z][0-9][0-9W]$",
        "MT": "^[A-Z]{3}$",
    ]

    /// The normalised code, or why it cannot be one (for `country`, ISO alpha-2).
    public static func check(_ text: String, regex: String, country: String = "") -> Result<String, Problem> {
        let code = normalise(text)
        guard !code.isEmpty else { return .failure(.empty) }
        guard code.count <= maximumLength else { return .failure(.tooLong(code.count)) }
        let bad = code.unicodeScalars.filter { scalar in
            !(("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == " " || scalar == "-")
        }
        guard bad.isEmpty else {
            return .failure(.characters(String(String.UnicodeScalarView(bad.prefix(3)))))
        }
        if !regex.isEmpty, !matches(code, regex), !matches(code, outwardPatterns[country] ?? "") {
            return .failure(.format)
        }
        return .success(code)
    }

    /// True when the whole of `code` matches `pattern` (an empty or broken pattern: false).
    static func matches(_ code: String, _ pattern: String) -> Bool {
        let pattern = pattern.trimmingCharacters(in: .whitespaces)
        guard !pattern.isEmpty, let expression = try? NSRegularExpression(pattern: pattern) else { return false }
        let range = NSRange(code.startIndex..., in: code)
        guard let match = expression.firstMatch(in: code, range: range) else { return false }
        return match.range == range
    }

    /// The part of a checked code that Zippopotam.us looks up for `country`, in the
    /// spelling of GeoNames' postal data, which it is built on.
    public static func outward(_ code: String, country: String) -> String {
        let compact = code.filter { $0 != " " }
        switch country {
        case "GB", "GG", "JE", "IM":
            if let space = code.firstIndex(of: " ") { return String(code[..<space]) }
            return code.count > 4 ? String(code.dropLast(3)) : code
        case "CA", "IE", "MT": return String(compact.prefix(3))
        case "NL":
            return compact.count > 4 && compact.prefix(4).allSatisfy(\.isNumber) ? String(compact.prefix(4)) : code
        case "CZ", "SK", "SE":
            guard compact.count == 5, compact.allSatisfy(\.isNumber) else { return code }
            return String(compact.prefix(3)) + " " + String(compact.suffix(2))
        case "BR": return String(code.prefix { $0 != "-" })
        default:
            if PostalForm.zipCountries.contains(country) { return String(code.prefix { $0 != "-" }) }
            return code
        }
    }

    /// A reader's description of a GeoNames format ("#####" → "5 digits";
    /// "@# #@@" → "like @# #@@ (@ a letter, # a digit)"); nil when there is none.
    public static func describe(format: String) -> String? {
        let alternatives = format.split(separator: "|").map(String.init).filter { !$0.isEmpty }
        guard !alternatives.isEmpty else { return nil }
        if alternatives.count == 1, alternatives[0].allSatisfy({ $0 == "#" }) {
            return "\(alternatives[0].count) digits"
        }
        if alternatives.allSatisfy({ $0.allSatisfy { $0 == "#" || $0 == "-" } }) && alternatives.count == 2 {
            return "\(alternatives[0].count) digits, or \(alternatives[1])"
        }
        return "like " + alternatives.joined(separator: " or ") + " (# a digit, @ a letter)"
    }
}
