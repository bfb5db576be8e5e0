import Foundation
import Synchronization

/// Bounds-checked little-endian reads from a section of the mapped file.
/// Points into the immutable mapping owned by a `MappedFile`, which outlives every reader.
///
/// Contract: no read leaves the section, whatever offset a damaged file hands it. An
/// out-of-range read returns zero (or no bytes) and notes the damage in its file's
/// ``GazetteerDamage``, so the lookup ends with a wrong but harmless value and the caller
/// can tell the user the file is damaged — never a crash. The check is one compare per
/// read; the offsets of a sound file never fail it.
// @unchecked: it wraps C memory (a read-only mapping) and an unowned reference, both
// outlived by the Gazetteer that hands readers out.
struct SectionReader: @unchecked Sendable {
    let base: UnsafeRawPointer
    let count: Int
    /// The record of the file the section is in. Not counted (`unowned(unsafe)`): readers
    /// are copied in the hot loops, and the ``Gazetteer`` that owns the record outlives
    /// them, as its mapping does.
    unowned(unsafe) let damage: GazetteerDamage

    @inline(__always) func inBounds(_ offset: Int, _ size: Int) -> Bool {
        if offset >= 0 && offset <= count &- size { return true }
        damage.note()
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
        guard length >= 0, inBounds(offset, length) else { return SectionReader(base: base, count: 0, damage: damage) }
        return SectionReader(base: base + offset, count: length, damage: damage)
    }
}

/// Whether a lookup in one loaded file met a reference that leaves its section: the place
/// data is damaged (an SD card that lost a block, a truncated copy).
///
/// Contract: one record per ``Gazetteer``, set by ``SectionReader`` and the structural
/// checks of the walks (a tree or key walk that would not end), never cleared; a caller
/// checks it after answering (``Gazetteer/damageDetected``) and reports the file as
/// damaged instead of trusting the answer.
public final class GazetteerDamage: Sendable {
    private let seen = Atomic<Bool>(false)
    /// The file the record is about.
    public let file: String

    init(file: String) { self.file = file }

    @inline(never) func note() { seen.store(true, ordering: .relaxed) }

    /// True once a read found the data damaged.
    public var detected: Bool { seen.load(ordering: .relaxed) }
}

extension Gazetteer {
    /// True when a lookup met damage in this file's data (see ``GazetteerDamage``).
    public var damageDetected: Bool { damage.detected }
}
