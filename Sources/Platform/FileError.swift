import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file operation that failed, with the system's reason.
///
/// Contract: `description` names what was attempted and the path, in words a user can act
/// on ("cannot write /var/lib/airloc/place: Permission denied"); `code` is the errno when
/// the failure came from the system.
public struct FileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was attempted: "write", "read", "create the directory", "map"...
    public var operation: String
    /// The file or directory.
    public var path: String
    /// The system's reason ("Permission denied").
    public var reason: String
    /// The errno, when the failure came from the system.
    public var code: Int32?

    /// A failure to `operation` `path`.
    public init(operation: String, path: String, reason: String, code: Int32? = nil) {
        self.operation = operation
        self.path = path
        self.reason = reason
        self.code = code
    }

    /// The failure `errno` describes now.
    public static func fromErrno(_ operation: String, path: String) -> FileError {
        let code = errno
        return FileError(operation: operation, path: path, reason: String(cString: strerror(code)), code: code)
    }

    /// "cannot write PATH: REASON".
    public var description: String { "cannot \(operation) \(path): \(reason)" }

    /// The reader of a pipe went away (`airloc log export | head`): the writer should stop,
    /// quietly; nothing failed.
    public var isBrokenPipe: Bool { code == EPIPE }
}
