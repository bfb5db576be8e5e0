import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A read-only memory mapping of a whole file.
///
/// Mapping instead of reading keeps start-up cost independent of the file size: the
/// kernel pages in only what a lookup touches. Immutable after init, hence Sendable.
final class MappedFile: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer

    init(path: String) throws(GazetteerError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        let size = Int(info.st_size)
        guard size > 0 else { throw .corrupt(path: path, reason: "the file is empty") }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        // Lookups touch a few scattered pages; without this hint the kernel reads (and
        // maps) the neighbourhood of every fault, which costs a one-shot command
        // megabytes of memory and page-cache reads it never uses.
        _ = madvise(base, size, MADV_RANDOM)
        bytes = UnsafeRawBufferPointer(start: base, count: size)
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
    }
}

/// Bounds-checked little-endian reads from a section of the mapped file.
/// Points into the immutable mapping owned by a `MappedFile`, which outlives every reader.
struct SectionReader: @unchecked Sendable {
    let base: UnsafeRawPointer
    let count: Int

    @inline(__always) func u8(_ offset: Int) -> UInt8 { base.load(fromByteOffset: offset, as: UInt8.self) }
    @inline(__always) func u16(_ offset: Int) -> UInt16 {
        UInt16(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }
    @inline(__always) func u32(_ offset: Int) -> UInt32 {
        UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
    @inline(__always) func i32(_ offset: Int) -> Int32 {
        Int32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: Int32.self))
    }
    @inline(__always) func f32(_ offset: Int) -> Float { Float(bitPattern: u32(offset)) }
}
