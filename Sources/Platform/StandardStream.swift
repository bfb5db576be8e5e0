import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writing text to a file descriptor (stdout, stderr, a terminal) completely.
///
/// Contract: every byte is written, across short writes and `EINTR`; a closed pipe or
/// another error ends the write quietly (a reader that went away is not the writer's
/// failure, and a diagnostic about it would go nowhere).
public enum StandardStream {
    /// Standard output's descriptor.
    public static let output: Int32 = STDOUT_FILENO
    /// Standard error's descriptor.
    public static let error: Int32 = STDERR_FILENO
    /// Standard input's descriptor.
    public static let input: Int32 = STDIN_FILENO

    /// Writes all of `text` to `descriptor`, retrying short writes and EINTR.
    public static func write(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written <= 0 {
                if written < 0 && errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// Writes all of `data` to `descriptor` (a file or stdout), retrying short writes and
    /// `EINTR`; unlike ``write(_:to:)`` a failure is thrown (a full disk must not pass
    /// for a complete export). `EPIPE` comes back with `code` set: the reader left.
    public static func writeAll(_ data: Data, to descriptor: Int32, path: String = "stdout") throws(FileError) {
        var failure: FileError?
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 {
                    failure = FileError.fromErrno("write", path: path)
                    return
                }
                offset += written
            }
        }
        if let failure { throw failure }
    }

    /// True when `descriptor` is a terminal.
    public static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// The width in columns of the terminal `descriptor` is, or nil when it is none (or
    /// does not say).
    public static func columns(_ descriptor: Int32) -> Int? {
        var window = winsize()
        guard isatty(descriptor) == 1, ioctl(descriptor, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0 else {
            return nil
        }
        return Int(window.ws_col)
    }
}
