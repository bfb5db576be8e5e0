import CINIH
import Foundation

/// The only code that touches libinih: reads one INI file into (section, key, value,
/// line) entries.
///
/// libinih's handler gets no line number in Debian's build, so the file is fed through
/// `ini_parse_stream` with a reader that counts lines: every entry, and every syntax
/// error, is known by its line, and config errors can say file:line.
struct ConfigFile {
    struct Entry: Equatable {
        var section: String
        var key: String
        var value: String
        var line: Int
    }

    /// Longest line accepted; libinih's own buffer is 200 bytes and would split longer
    /// lines silently.
    static let maximumLineLength = 190

    /// Parses `text` (the contents of `path`, used in messages).
    static func parse(_ text: String, path: String) throws(ConfigurationError) -> [Entry] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (index, line) in lines.enumerated() where line.utf8.count > maximumLineLength {
            throw ConfigurationError("\(path):\(index + 1): line is longer than \(maximumLineLength) characters")
        }
        let state = ParseState(lines: lines)
        let pointer = Unmanaged.passRetained(state).toOpaque()
        defer { Unmanaged<ParseState>.fromOpaque(pointer).release() }
        let reader: ini_reader = { buffer, size, stream in
            let state = Unmanaged<ParseState>.fromOpaque(stream!).takeUnretainedValue()
            guard let buffer, state.next < state.lines.count else { return nil }
            let bytes = Array((state.lines[state.next] + "\n").utf8.prefix(Int(size) - 1))
            for (index, byte) in bytes.enumerated() { buffer[index] = CChar(bitPattern: byte) }
            buffer[bytes.count] = 0
            state.next += 1
            return buffer
        }
        let handler: ini_handler = { user, section, name, value in
            let state = Unmanaged<ParseState>.fromOpaque(user!).takeUnretainedValue()
            state.entries.append(
                Entry(
                    section: section.map { String(cString: $0) } ?? "", key: name.map { String(cString: $0) } ?? "",
                    value: value.map { String(cString: $0) } ?? "", line: state.next))
            return 1
        }
        let result = ini_parse_stream(reader, pointer, handler, pointer)
        if result > 0 {
            throw ConfigurationError("\(path):\(result): not a 'key = value' line or a '[section]' header")
        }
        if result < 0 { throw ConfigurationError("\(path): cannot be parsed (out of memory)") }
        return state.entries
    }

    /// Reads and parses the file at `path`; nil when it does not exist.
    static func load(path: String) throws(ConfigurationError) -> [Entry]? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        // Read whole, and parsed into entries: a file of 107 MB took 536 MB. The documented
        // file with every key is 11 KB; no configuration comes near a mebibyte.
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int,
            size > largest
        {
            throw ConfigurationError(
                "\(path): is \(size) bytes; a configuration file is at most \(largest / 1024) KiB (is it the right file?)"
            )
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("\(path): cannot be read (permissions?)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError("\(path): is not UTF-8 text")
        }
        return try parse(text, path: path)
    }

    /// The largest configuration file read, bytes.
    static let largest = 1_048_576

    private final class ParseState {
        let lines: [String]
        var next = 0
        var entries: [Entry] = []
        init(lines: [String]) { self.lines = lines }
    }
}
