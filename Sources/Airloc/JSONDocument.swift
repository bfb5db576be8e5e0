import Foundation

/// How airloc's JSON documents are written: snake_case keys, sorted, unknown values as
/// `null` rather than absent (``NullPreserving``), slashes unescaped, one document per
/// line when not pretty. The schemas are in docs/json-schema.md.
public enum JSONDocument {
    public static func encode(_ value: any Encodable, pretty: Bool = true) -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(NullPreserving(value)) else { return "{}\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
