import Foundation

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
