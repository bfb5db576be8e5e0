/// Text as XML 1.0 holds it, for the files airloc writes (GPX exports, SVG figures).
///
/// Contract: `&`, `<`, `>`, `"` and `'` escaped; the control characters XML 1.0 cannot
/// hold even escaped are dropped (tab, line feed and carriage return are kept where
/// `keepingLineBreaks`; an SVG label drops them too), as are C1 controls.
public enum XMLText {
    /// `text` with `&`, `<`, `>`, `"` and `'` escaped, and controls XML cannot hold removed.
    public static func escape(_ text: String, keepingLineBreaks: Bool = true) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case _ where keepingLineBreaks && (scalar == "\t" || scalar == "\n" || scalar == "\r"):
                out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value): continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
