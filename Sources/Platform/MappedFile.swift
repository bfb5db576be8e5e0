import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A read-only memory mapping of a whole file.
///
/// Mapping instead of reading keeps start-up cost independent of the file size: the
/// kernel pages in only what a lookup touches. An empty file maps to no bytes. Immutable
/// after init, hence Sendable; `bytes` lives as long as the object.
/// @unchecked: it wraps C memory (the mapping), read-only and unmapped only at deinit.
public final class MappedFile: @unchecked Sendable {
    /// The file's bytes, valid while this object lives.
    public let bytes: UnsafeRawBufferPointer

    /// Maps `path`. `randomAccess` tells the kernel not to read ahead: lookups that touch
    /// a few scattered pages would otherwise cost a one-shot command megabytes of memory
    /// and page-cache reads it never uses.
    public init(path: String, randomAccess: Bool = true) throws(FileError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .fromErrno("read", path: path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .fromErrno("read", path: path) }
        let size = Int(info.st_size)
        guard size > 0 else {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            throw .fromErrno("map", path: path)
        }
        if randomAccess { _ = madvise(base, size, MADV_RANDOM) }
        bytes = UnsafeRawBufferPointer(start: base, count: size)
    }

    deinit {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }
}
