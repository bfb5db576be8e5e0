import Foundation

/// A published row read in one pass over its bytes: the whole text checked to be JSON
/// (RFC 8259), and the top-level members kept by name — what the collector checks and
/// stores of a row, which is flat. Nested values are checked and passed over.
///
/// Contract:
/// - ``init(_:)`` is nil unless the text is exactly one JSON object (whitespace around it
///   allowed), nested at most ``maximumDepth`` deep; strings may not hold raw control
///   characters, escapes are JSON's; numbers follow JSON's grammar.
/// - A member's value is `.null`, `.bool`, `.number` (finite), `.string` (unescaped),
///   `.strings` (an array of strings only) or `.other` (an object or any other array). A
///   number beyond a double's range anywhere makes the text no JSON the collector reads. A name given twice keeps its last value, as
///   PostgreSQL's jsonb does.
/// - It never traps on any input: every read is bounds-checked.
struct FlatJSON {
    /// A top-level member's value.
    enum Value: Equatable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case strings([String])
        case other
    }

    /// Nesting beyond this is refused (a hostile payload cannot run the stack down).
    static let maximumDepth = 32

    private(set) var members: [String: Value] = [:]
    /// A `\u0000` escape is somewhere in the text (a name, a value, a nested string):
    /// PostgreSQL's jsonb and text refuse that character, so the row cannot be stored.
    private(set) var holdsNUL = false

    init?(_ text: String) {
        var text = text
        let parsed = text.withUTF8 { bytes -> ([String: Value], Bool)? in
            var reader = Reader(bytes: bytes)
            return reader.object().map { ($0, reader.sawNUL) }
        }
        guard let parsed else { return nil }
        (members, holdsNUL) = parsed
    }

    subscript(name: String) -> Value? { members[name] }
}

/// The reader under ``FlatJSON``: a cursor over UTF-8 bytes.
private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var at = 0
    /// A `\u0000` escape was read.
    var sawNUL = false

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private var current: UInt8? { at < bytes.count ? bytes[at] : nil }

    private mutating func skipSpace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { at += 1 }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard current == byte else { return false }
        at += 1
        return true
    }

    /// The whole text as one object's members, or nil.
    mutating func object() -> [String: FlatJSON.Value]? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var members: [String: FlatJSON.Value] = [:]
        // A row has about 20 members: one allocation, no growing.
        members.reserveCapacity(32)
        if take(UInt8(ascii: "}")) { return finished(members) }
        repeat {
            skipSpace()
            guard let name = string(), take(UInt8(ascii: ":")), let value = member() else { return nil }
            members[name] = value
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")) else { return nil }
        return finished(members)
    }

    private mutating func finished(_ members: [String: FlatJSON.Value]) -> [String: FlatJSON.Value]? {
        skipSpace()
        return at == bytes.count ? members : nil
    }

    /// A top-level member's value.
    private mutating func member() -> FlatJSON.Value? {
        skipSpace()
        switch current {
        case UInt8(ascii: "\""): return string().map { .string($0) }
        case UInt8(ascii: "["):
            // An array of strings is kept (a `words` column); any other is checked only.
            let start = at
            at += 1
            var words: [String] = []
            if take(UInt8(ascii: "]")) { return .strings([]) }
            repeat {
                skipSpace()
                guard current == UInt8(ascii: "\""), let word = string() else {
                    at = start
                    return skipValue(depth: 1) ? .other : nil
                }
                words.append(word)
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "]")) else { return nil }
            return .strings(words)
        case UInt8(ascii: "{"): return skipValue(depth: 1) ? .other : nil
        default: return scalar()
        }
    }

    /// `null`, `true`, `false` or a number.
    private mutating func scalar() -> FlatJSON.Value? {
        switch current {
        case UInt8(ascii: "n"): return literal("null") ? .null : nil
        case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
        default: break
        }
        guard let range = number() else { return nil }
        // strtod on a copy that ends in NUL: no String made for a number.
        let value = withUnsafeTemporaryAllocation(of: CChar.self, capacity: range.count + 1) { buffer -> Double in
            for (offset, byte) in bytes[range].enumerated() { buffer[offset] = CChar(bitPattern: byte) }
            buffer[range.count] = 0
            return strtod(buffer.baseAddress!, nil)
        }
        // A number beyond a double's range is refused, as Foundation's parser refuses it.
        return value.isFinite ? .number(value) : nil
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard at + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[at + offset] != word.utf8Start[offset] { return false }
        at += count
        return true
    }

    /// The bytes of a number in JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func number() -> Range<Int>? {
        let start = at
        func digits() -> Bool {
            let first = at
            while let byte = current, (0x30...0x39).contains(byte) { at += 1 }
            return at > first
        }
        if current == UInt8(ascii: "-") { at += 1 }
        if current == UInt8(ascii: "0") {
            at += 1
        } else {
            guard let byte = current, (0x31...0x39).contains(byte), digits() else { return nil }
        }
        if current == UInt8(ascii: ".") {
            at += 1
            guard digits() else { return nil }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            at += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { at += 1 }
            guard digits() else { return nil }
        }
        return start..<at
    }

    /// A string, unescaped (the cursor on its opening quote).
    private mutating func string() -> String? {
        guard current == UInt8(ascii: "\"") else { return nil }
        at += 1
        let start = at
        // The common case, no escape: the bytes as they are.
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { return nil }
            at += 1
        }
        guard let stop = current else { return nil }
        if stop == UInt8(ascii: "\"") {
            at += 1
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at - 1]), as: UTF8.self)
        }
        var scalars = String.UnicodeScalarView()
        scalars.append(
            contentsOf: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
                .unicodeScalars)
        var pending: [UInt8] = []
        func flush() {
            scalars.append(contentsOf: String(decoding: pending, as: UTF8.self).unicodeScalars)
            pending.removeAll()
        }
        while let byte = current {
            at += 1
            switch byte {
            case UInt8(ascii: "\""):
                flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush()
                guard let escaped = current else { return nil }
                at += 1
                switch escaped {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    scalars.append(scalar)
                default: return nil
                }
            case 0..<0x20: return nil
            default: pending.append(byte)
            }
        }
        return nil
    }

    /// The scalar of `\uXXXX` (a surrogate pair as two escapes), the cursor after the `u`.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        if (0xD800...0xDBFF).contains(high) {
            guard literal("\\u"), let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        if high == 0 { sawNUL = true }
        // A lone low surrogate is no character.
        return Unicode.Scalar(high)
    }

    private mutating func hex4() -> UInt32? {
        guard at + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[at]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            at += 1
        }
        return value
    }

    /// Checks one value of any kind and moves past it.
    private mutating func skipValue(depth: Int) -> Bool {
        guard depth <= FlatJSON.maximumDepth else { return false }
        skipSpace()
        switch current {
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "["):
            at += 1
            if take(UInt8(ascii: "]")) { return true }
            repeat { guard skipValue(depth: depth + 1) else { return false } } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]"))
        case UInt8(ascii: "{"):
            at += 1
            if take(UInt8(ascii: "}")) { return true }
            repeat {
                skipSpace()
                guard string() != nil, take(UInt8(ascii: ":")), skipValue(depth: depth + 1) else { return false }
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}"))
        default: return scalar() != nil
        }
    }
}
