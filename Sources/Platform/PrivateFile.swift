import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file that holds personal data (the logbook), made private before anything is
/// written into it.
///
/// Contract: ``ensure(_:)`` creates `url` as 0600 when it does not exist, and tightens an
/// existing file of this user's that allows more (created by hand, or by an older
/// version) to 0600; its content is left alone. A file that cannot be made, inspected or
/// whose mode cannot be set is an error that says which and why — never ignored.
///
/// An existing file is never opened: closing any descriptor of a SQLite database drops
/// every POSIX lock this process holds on it (sqlite.org "How To Corrupt", §2.2), and
/// another process that then believes it holds the last connection deletes the
/// write-ahead log under the one still writing. So the mode is read and set by path.
public enum PrivateFile {
    /// Makes `url` private (see the type's contract).
    public static func ensure(_ url: URL) throws(FileError) {
        let path = url.path
        // O_EXCL: the descriptor opened and closed here is of a file nobody had open.
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        guard errno == EEXIST else { throw .fromErrno("create", path: path) }
        var info = stat()
        guard stat(path, &info) == 0 else { throw .fromErrno("inspect", path: path) }
        guard access(path, R_OK | W_OK) == 0 else { throw .fromErrno("open", path: path) }
        if info.st_mode & 0o777 != 0o600, info.st_uid == geteuid() {
            guard chmod(path, 0o600) == 0 else { throw .fromErrno("make private (0600)", path: path) }
        }
    }
}
