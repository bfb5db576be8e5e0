import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Replacing a file's whole content so that a crash, a kill or a power cut leaves either
/// the old content or the new one — never a mix, never neither — and so that a private
/// file is never readable by others, not even for an instant.
///
/// Contract: the new content goes to a temporary file in the same directory, created
/// with its final `mode` (`O_EXCL`, so no other file is followed or reused), flushed to
/// the storage (`fsync`), then renamed over the target (rename(2) replaces in one step).
/// On failure the temporary file is removed and the target is untouched. A missing
/// directory is created: private (``PrivateDirectory``) for a private file, else with
/// the user's umask.
public enum AtomicFile {
    /// Writes `data` to `url` with permissions `mode` (0600: the user's alone).
    public static func write(_ data: some Collection<UInt8>, to url: URL, mode: mode_t = 0o600) throws(FileError) {
        let directory = url.deletingLastPathComponent()
        if mode & 0o077 == 0 {
            try PrivateDirectory.ensure(directory)
        } else {
            try PrivateDirectory.ensureParents(directory)
        }
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp").path
        unlink(temporary)  // left over by a crashed earlier run of this process id
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .fromErrno("write", path: url.path) }
        func fail(_ operation: String) -> FileError {
            let error = FileError.fromErrno(operation, path: url.path)
            close(fd)
            unlink(temporary)
            return error
        }
        // The umask may have taken bits away from a public file's mode; set it exactly.
        guard fchmod(fd, mode) == 0 else { throw fail("write") }
        let bytes = Array(data)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw fail("write") }
            written += count
        }
        guard fsync(fd) == 0 else { throw fail("write") }
        guard close(fd) == 0 else {
            let error = FileError.fromErrno("write", path: url.path)
            unlink(temporary)
            throw error
        }
        guard rename(temporary, url.path) == 0 else {
            let error = FileError.fromErrno("write", path: url.path)
            unlink(temporary)
            throw error
        }
    }

    /// Removes `url`; a file that is not there is not an error.
    public static func remove(_ url: URL) throws(FileError) {
        guard unlink(url.path) == 0 || errno == ENOENT else { throw .fromErrno("remove", path: url.path) }
    }
}

/// A directory that holds airloc's private files (state, cache).
public enum PrivateDirectory {
    /// Creates `url` and its missing parents; `url` itself gets `mode`, and an existing
    /// `url` that allows more than `mode` is tightened to it (a cache directory made by an
    /// older version, or by hand, must not leave positions readable by others).
    public static func ensure(_ url: URL, mode: mode_t = 0o700) throws(FileError) {
        var info = stat()
        if stat(url.path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw FileError(operation: "use the directory", path: url.path, reason: "it is not a directory")
            }
            let permissions = info.st_mode & 0o777
            if permissions & ~mode != 0, info.st_uid == geteuid() {
                guard chmod(url.path, permissions & mode) == 0 else {
                    throw .fromErrno("restrict the permissions of", path: url.path)
                }
            }
            return
        }
        let parent = url.deletingLastPathComponent()
        if parent.path != url.path, stat(parent.path, &info) != 0 {
            // Parents are ordinary directories (~/.local/state): the user's umask decides.
            try ensureParents(parent)
        }
        guard mkdir(url.path, mode) == 0 || errno == EEXIST else {
            throw .fromErrno("create the directory", path: url.path)
        }
        _ = chmod(url.path, mode)  // mkdir's mode passes through the umask
    }

    /// Creates `url` and its missing parents as ordinary directories (the umask decides).
    public static func ensureParents(_ url: URL) throws(FileError) {
        var info = stat()
        if stat(url.path, &info) == 0 { return }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw FileError(operation: "create the directory", path: url.path, reason: "\(error.localizedDescription)")
        }
    }
}
