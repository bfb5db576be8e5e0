/// Text that may hold a credential, made fit to show: a message that quotes a URL or a
/// connection string a person wrote (a configuration error, a startup line) never shows
/// the password in it.
///
/// Contract: ``masked(_:)`` replaces the password of every `scheme://user:password@host`
/// with `***` (the user name is kept: it helps find the mistake), and the value of every
/// `password=` word of a libpq connection string; everything else is kept as it was.
public enum CredentialText {
    /// `text` with every password in it replaced by `***`.
    public static func masked(_ text: String) -> String {
        var result = maskedURLs(text)
        // libpq's key=value form: password=secret (or password = secret, or quoted).
        guard result.lowercased().contains("password") else { return result }
        var words = result.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        var index = 0
        while index < words.count {
            let word = words[index].lowercased()
            if word.hasPrefix("password=") {
                words[index] = String(words[index].prefix("password=".count)) + "***"
            } else if word == "password", index + 2 < words.count, words[index + 1] == "=" {
                words[index + 2] = "***"
            } else if word == "password=", index + 1 < words.count {
                words[index + 1] = "***"
            }
            index += 1
        }
        result = words.joined(separator: " ")
        return result
    }

    /// Every `://user:password@` with its password masked.
    private static func maskedURLs(_ text: String) -> String {
        guard text.contains("://"), text.contains("@") else { return text }
        var output = ""
        var rest = Substring(text)
        while let scheme = rest.range(of: "://") {
            output += rest[..<scheme.upperBound]
            rest = rest[scheme.upperBound...]
            // The authority ends at the first '/', '?', '#' or space.
            let end = rest.firstIndex { "/?# \t\n'\"".contains($0) } ?? rest.endIndex
            let authority = rest[..<end]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                output += authority[..<colon] + ":***" + authority[at...]
            } else {
                output += authority
            }
            rest = rest[end...]
        }
        return output + rest
    }
}
