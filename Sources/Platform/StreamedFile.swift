import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file written as a stream and put in place only when complete (`log export
/// --output`): a reader never sees half an export, and a failed one leaves nothing.
///
/// Contract: the stream goes to `.NAME.partial` beside the target, created 0600 (the
/// rows hold exact positions); ``commit()`` flushes it to storage and renames it over
/// the target in one step; ``abandon()`` (or a failed commit) removes it. Errors are
/// ``FileError``s naming the path ("cannot write /x/.day.gpx.partial: Permission denied").
public final class StreamedFile {
    /// Where the file is put once complete.
    public let target: URL
    /// Where it is written meanwhile (beside the target, so the rename is atomic).
    public let partial: URL
    /// Where to write the stream.
    public let descriptor: Int32
    private var open = true

    /// A partial file beside `target`, 0600.
    public init(_ target: URL) throws(FileError) {
        self.target = target
        partial = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).partial")
        descriptor = Glibc.open(partial.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .fromErrno("write", path: partial.path) }
    }

    /// Puts the complete file in place.
    public func commit() throws(FileError) {
        guard open else { return }
        open = false
        guard fsync(descriptor) == 0, close(descriptor) == 0 else {
            let error = FileError.fromErrno("write", path: target.path)
            unlink(partial.path)
            throw error
        }
        guard rename(partial.path, target.path) == 0 else {
            let error = FileError.fromErrno("write", path: target.path)
            unlink(partial.path)
            throw error
        }
    }

    /// Removes the partial file; the target is untouched.
    public func abandon() {
        guard open else { return }
        open = false
        close(descriptor)
        unlink(partial.path)
    }

    deinit { abandon() }
}
