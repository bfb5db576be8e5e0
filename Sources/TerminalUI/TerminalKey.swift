/// A key the picker understands, decoded from the bytes a terminal sends in raw mode.
public enum TerminalKey: Equatable, Sendable {
    /// Printable text (one Unicode scalar at a time, or a pasted run of them).
    case text(String)
    case backspace
    /// Ctrl-U: clear the query (the seed's clear button).
    case clearLine
    case up
    case down
    case pageUp
    case pageDown
    case enter
    case tab
    case escape
    /// Ctrl-C (raw mode delivers it as a byte, not as SIGINT).
    case interrupt
}

/// Turns raw terminal input into ``TerminalKey``s.
///
/// Contract: pure and incremental — bytes may arrive split anywhere (half an escape
/// sequence, half a UTF-8 character); a lone ESC is reported only by ``flush()``, which
/// the reader calls when no further byte follows within a short pause (an arrow key's
/// bytes arrive together, a person's Esc does not). Unknown escape sequences and
/// control bytes are dropped, never inserted into the query; malformed UTF-8 is dropped.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    /// True while an ESC (or an unfinished sequence) waits for more bytes.
    public var isWaiting: Bool { !pending.isEmpty }

    /// The keys `bytes` complete (an Esc alone waits for ``flush()``).
    public mutating func feed(_ bytes: [UInt8]) -> [TerminalKey] {
        pending += bytes
        var keys: [TerminalKey] = []
        while let key = next() { keys.append(key) }
        return Self.joinText(keys)
    }

    /// No more bytes came: a waiting ESC was the Esc key; a partial sequence is dropped.
    public mutating func flush() -> [TerminalKey] {
        defer { pending.removeAll() }
        return pending.first == 0x1B ? [.escape] : []
    }

    /// Decodes one key from `pending`, or nil when more bytes are needed.
    private mutating func next() -> TerminalKey? {
        while let byte = pending.first {
            switch byte {
            case 0x1B:
                guard pending.count >= 2 else { return nil }
                guard pending[1] == UInt8(ascii: "[") || pending[1] == UInt8(ascii: "O") else {
                    // ESC followed by something else: Esc, then that byte on its own.
                    pending.removeFirst()
                    return .escape
                }
                // CSI/SS3: parameters, then one final byte in 0x40...0x7E.
                guard let end = pending.dropFirst(2).firstIndex(where: { (0x40...0x7E).contains($0) }) else {
                    if pending.count > 16 { pending.removeAll() }  // runaway sequence: drop it
                    return nil
                }
                let body = Array(pending[2...end])
                pending.removeFirst(end + 1)
                switch body {
                case [UInt8(ascii: "A")]: return .up
                case [UInt8(ascii: "B")]: return .down
                case Array("5~".utf8): return .pageUp
                case Array("6~".utf8): return .pageDown
                default: continue  // another key (Home, F1, a mouse report): ignored
                }
            case 0x7F, 0x08:
                pending.removeFirst()
                return .backspace
            case 0x0D, 0x0A:
                pending.removeFirst()
                return .enter
            case 0x09:
                pending.removeFirst()
                return .tab
            case 0x15:
                pending.removeFirst()
                return .clearLine
            case 0x03:
                pending.removeFirst()
                return .interrupt
            case 0x10:  // Ctrl-P / Ctrl-N: up and down for Emacs hands
                pending.removeFirst()
                return .up
            case 0x0E:
                pending.removeFirst()
                return .down
            case ..<0x20:
                pending.removeFirst()
                continue
            default:
                let length = Self.utf8Length(byte)
                guard length > 0 else {
                    pending.removeFirst()
                    continue
                }
                guard pending.count >= length else { return nil }
                let bytes = Array(pending.prefix(length))
                pending.removeFirst(length)
                guard let scalar = String(validating: bytes, as: UTF8.self), !scalar.isEmpty else { continue }
                return .text(scalar)
            }
        }
        return nil
    }

    private static func utf8Length(_ lead: UInt8) -> Int {
        switch lead {
        case 0x20..<0x80: return 1
        case 0xC2..<0xE0: return 2
        case 0xE0..<0xF0: return 3
        case 0xF0..<0xF5: return 4
        default: return 0
        }
    }

    /// A paste arrives as many characters: one `.text` keeps redraws to one.
    private static func joinText(_ keys: [TerminalKey]) -> [TerminalKey] {
        var out: [TerminalKey] = []
        for key in keys {
            if case .text(let more) = key, case .text(let text)? = out.last {
                out[out.count - 1] = .text(text + more)
            } else {
                out.append(key)
            }
        }
        return out
    }
}
