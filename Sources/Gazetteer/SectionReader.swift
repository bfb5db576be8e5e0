import Foundation
import Synchronization

/// Bounds-checked little-endian reads from a section of the mapped file.
/// Points into the immutable mapping owned by a `MappedFile`, which outlives every reader.
///
/// Contract: no read leaves the section, whatever offset a damaged file hands it. An
/// out-of-range read returns zero (or no bytes) and notes the damage in
/// ``GazetteerDamage``, so the lookup ends with a wrong but harmless value and the caller
/// can tell the user the file is damaged — never a crash. The check is one compare per
/// read; the offsets of a sound file never fail it.
struct SectionReader: @unchecked Sendable {
    let base: UnsafeRawPointer
    let count: Int

    @inline(__always) func inBounds(_ offset: Int, _ size: Int) -> Bool {
        if offset >= 0 && offset <= count &- size { return true }
        GazetteerDamage.note()
        return false
    }

    @inline(__always) func u8(_ offset: Int) -> UInt8 {
        inBounds(offset, 1) ? base.load(fromByteOffset: offset, as: UInt8.self) : 0
    }
    @inline(__always) func u16(_ offset: Int) -> UInt16 {
        inBounds(offset, 2) ? UInt16(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)) : 0
    }
    @inline(__always) func u32(_ offset: Int) -> UInt32 {
        inBounds(offset, 4) ? UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) : 0
    }
    @inline(__always) func i32(_ offset: Int) -> Int32 { Int32(bitPattern: u32(offset)) }
    @inline(__always) func f32(_ offset: Int) -> Float { Float(bitPattern: u32(offset)) }

    /// Reads whose offset the caller has proven in range by structure (a slot below a
    /// count the section's own size was checked against at load): the hot loops of the
    /// reverse geocoder, where a check per float costs a fifth of the lookup rate.
    @inline(__always) func uncheckedU32(_ offset: Int) -> UInt32 {
        UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
    @inline(__always) func uncheckedF32(_ offset: Int) -> Float { Float(bitPattern: uncheckedU32(offset)) }
    @inline(__always) func uncheckedU8(_ offset: Int) -> UInt8 { base.load(fromByteOffset: offset, as: UInt8.self) }
    @inline(__always) func uncheckedU16(_ offset: Int) -> UInt16 {
        UInt16(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }
    @inline(__always) func uncheckedBytes(at offset: Int, count length: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + offset, count: length)
    }

    /// `length` bytes at `offset`, or none when they are not all inside the section.
    @inline(__always) func bytes(at offset: Int, count length: Int) -> UnsafeRawBufferPointer {
        guard length >= 0, inBounds(offset, length) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: base + offset, count: length)
    }

    /// The part of the section from `offset` on, `length` bytes long (a sub-section), or
    /// an empty one when it does not fit.
    @inline(__always) func slice(at offset: Int, count length: Int) -> SectionReader {
        guard length >= 0, inBounds(offset, length) else { return SectionReader(base: base, count: 0) }
        return SectionReader(base: base + offset, count: length)
    }
}

/// Whether a lookup in this process met a reference that leaves its section: the place
/// data is damaged (an SD card that lost a block, a truncated copy).
///
/// Contract: set by ``SectionReader`` and the structural checks of the walks (a tree or
/// key walk that would not end), never cleared; the command line checks it after
/// answering and reports the file as damaged instead of trusting the answer.
public enum GazetteerDamage {
    static let seen = Atomic<Bool>(false)
    static let loaded = Mutex<String?>(nil)

    /// The file the process loaded last (the one a damaged lookup read).
    public static var file: String? { loaded.withLock { $0 } }

    @inline(never) static func note() { seen.store(true, ordering: .relaxed) }

    public static var detected: Bool { seen.load(ordering: .relaxed) }

    /// Forgets what was noted: for a process that goes on with another copy of the data
    /// (the fuzz test).
    public static func clear() { seen.store(false, ordering: .relaxed) }
}

extension Gazetteer {
    /// True when a lookup met damage in the data (see ``GazetteerDamage``).
    public var damageDetected: Bool { GazetteerDamage.detected }
}
