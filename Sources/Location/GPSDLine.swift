import Foundation

/// Whether a line from gpsd's socket is one JSON object and nothing else: the only lines
/// airloc hands to libgps' `gps_unpack`.
///
/// Why: libgps 3.22 (Debian 12's) loops for ever in `gps_unpack` on a line with a byte
/// other than white space after an object's closing brace (`{"class":"TPV"}x{"class":"TPV"}`),
/// which no gpsd sends but anything listening on a configured gpsd port may; fuzzing found
/// it (Fuzz/corpus/gpsd-json keeps the line). Such a line is skipped, never unpacked.
///
/// Contract: true when the line is one JSON object, valid as JSON (RFC 8259: no control
/// byte in a string, nothing but white space around it); no NUL byte anywhere. A second
/// fuzzing run found that a line that only looks like one object to a lenient scan (a
/// control byte where a quote should be) loops libgps too: only valid JSON passes.
enum GPSDLine {
    static func isOneObject(_ line: [UInt8]) -> Bool {
        guard isOneObjectShaped(line) else { return false }
        return (try? JSONSerialization.jsonObject(with: Data(line))) is [String: Any]
    }

    /// The quick look first (most lines pass it; a line that fails it is never parsed).
    private static func isOneObjectShaped(_ line: [UInt8]) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        var closed = false
        for byte in line {
            if byte == 0 { return false }
            if closed {
                guard byte == 0x20 || byte == 0x09 || byte == 0x0D else { return false }
                continue
            }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == 0x5C {
                    escaped = true
                } else if byte == 0x22 {
                    inString = false
                }
                continue
            }
            switch byte {
            case 0x22: inString = true
            case 0x7B, 0x5B:
                if depth == 0 && byte == 0x5B { return false }
                depth += 1
            case 0x7D, 0x5D:
                depth -= 1
                if depth < 0 { return false }
                if depth == 0 { closed = true }
            case 0x20, 0x09, 0x0D: break
            default: if depth == 0 { return false }
            }
        }
        return closed
    }
}
