import Foundation

/// JSON text written by hand where a document is made per row or per request: the
/// logbook's NDJSON lines, the collector's batches, the fleet page's answers.
///
/// Contract: ``quoted(_:)`` is a JSON string literal of `text` that any JSON parser reads
/// back as `text`: quotes, backslashes and control characters escaped, and C1 controls
/// (U+0080-U+009F, which some terminals act on) as `\u` escapes; everything else as it is.
public enum JSONText {
    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String {
        // Most values (ids, times, names of things) need no escaping: one scan decides.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C && $0 < 0x7F }) { return "\"" + text + "\"" }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
