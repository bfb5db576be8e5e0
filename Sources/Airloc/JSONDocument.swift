import Foundation

/// How airloc's JSON documents are written: snake_case keys, sorted, unknown values as
/// `null` rather than absent (``NullPreserving``), slashes unescaped, one document per
/// line when not pretty. The schemas are in docs/json-schema.md.
public enum JSONDocument {
    /// `value` as the document (pretty: one key a line; else one line).
    public static func encode(_ value: any Encodable, pretty: Bool = true) -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(NullPreserving(value)) else { return "{}\n" }
        return escapingC1(String(decoding: data, as: UTF8.self)) + "\n"
    }

    /// JSONEncoder escapes C0 control characters but writes C1 (U+0080-U+009F) raw, which
    /// some terminals act on; they can only occur inside strings, where `\u0080` is the
    /// same character.
    static func escapingC1(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: { (0x80...0x9F).contains($0.value) }) else { return json }
        var escaped = ""
        for scalar in json.unicodeScalars {
            if (0x80...0x9F).contains(scalar.value) {
                escaped += String(format: "\\u%04x", scalar.value)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
