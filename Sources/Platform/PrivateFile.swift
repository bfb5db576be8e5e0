import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file that holds personal data (the logbook), made private before anything is
/// written into it.
///
/// Contract: ``ensure(_:)`` creates `url` as 0600 when it does not exist, and tightens an
/// existing file of this user's that allows more (created by hand, or by an older
/// version) to 0600; its content is left alone. A file that cannot be opened or whose
/// mode cannot be set is an error that says which and why — never ignored.
public enum PrivateFile {
    /// Makes `url` private (see the type's contract).
    public static func ensure(_ url: URL) throws(FileError) {
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .fromErrno("open", path: url.path) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .fromErrno("inspect", path: url.path) }
        if info.st_mode & 0o777 != 0o600, info.st_uid == geteuid() {
            guard fchmod(descriptor, 0o600) == 0 else { throw .fromErrno("make private (0600)", path: url.path) }
        }
    }
}
