import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A password, token or key kept in a file of its own, which only its owner may read.
///
/// Contract: the file must be a regular file with no permission for group or others
/// (mode 0600 or stricter); a secret others could read is refused, never used. The first
/// line is the secret; an empty one is refused (an empty password would let anyone in who
/// sends an empty one). The secret is in no error and no description.
public enum SecretFile {
    /// Why the secret is not used.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case unreadable(String)
        case notAFile
        case readableByOthers(mode: String)
        /// The first line is empty: no secret.
        case empty

        /// The problem, without the secret.
        public var description: String {
            switch self {
            case .unreadable(let reason): return reason
            case .notAFile: return "not a regular file"
            case .readableByOthers(let mode): return "others may read it (mode \(mode))"
            case .empty: return "it holds no secret (its first line is empty): write the secret on its first line"
            }
        }
    }

    /// The secret in `path`'s first line, or why it is not used.
    public static func read(_ path: String) throws(Problem) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .unreadable(String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notAFile }
        guard info.st_mode & 0o077 == 0 else { throw .readableByOthers(mode: String(info.st_mode & 0o777, radix: 8)) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw .unreadable("cannot be read") }
        let secret = String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
            .trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
        guard !secret.isEmpty else { throw .empty }
        return secret
    }
}
