import CWideChar
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How many terminal columns text takes: CJK ideographs two, combining marks none —
/// from the C library's `wcwidth`, so airloc agrees with the terminal's own idea.
///
/// Contract: ``prepare()`` selects a UTF-8 character type once (the user's locale, or
/// C.UTF-8 when that is not UTF-8); afterwards a scalar `wcwidth` does not know
/// (unassigned, or no UTF-8 locale at all) counts as one column, or none for a
/// combining mark, so a line never overflows by more than the terminal would show.
public enum DisplayWidth {
    /// Sets the locale wcwidth needs (once, before any width).
    public static func prepare() {
        setlocale(LC_CTYPE, "")
        if wcwidth(wchar_t(0x4E00)) != 2 { setlocale(LC_CTYPE, "C.UTF-8") }
    }

    /// Columns `scalar` takes on a terminal.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let width = wcwidth(wchar_t(scalar.value))
        if width >= 0 { return Int(width) }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: return 1
        }
    }

    /// Columns `text` takes.
    public static func of(_ text: String) -> Int { text.unicodeScalars.reduce(0) { $0 + of($1) } }

    /// `text` cut to at most `columns` columns, with "…" when something was cut. Whole
    /// characters only (a base letter keeps its combining marks).
    public static func truncate(_ text: String, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        guard of(text) > columns else { return text }
        var out = ""
        var used = 0
        for character in text {
            let width = of(String(character))
            if used + width > columns - 1 { break }
            out.append(character)
            used += width
        }
        return out + "…"
    }

    /// The last `columns` columns of `text` (for a long query: keep what is being typed).
    public static func tail(_ text: String, to columns: Int) -> String {
        guard of(text) > columns, columns > 1 else { return text }
        var out = ""
        var used = 0
        for character in text.reversed() {
            let width = of(String(character))
            if used + width > columns - 1 { break }
            out.insert(character, at: out.startIndex)
            used += width
        }
        return "…" + out
    }
}
