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
        // Foundation's parser is the strict reading: trailing bytes, a NUL or a control byte
        // in a string, a top-level array all fail it.
        (try? JSONSerialization.jsonObject(with: Data(line))) is [String: Any]
    }
}
