/// Appends little-endian values to a byte array; the builder's only way to write.
struct BinaryWriter {
    private(set) var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func i32(_ value: Int32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func f32(_ value: Float) { u32(value.bitPattern) }
    mutating func raw(_ data: [UInt8]) { bytes.append(contentsOf: data) }
    /// Overwrites four bytes already written at `offset` (a reference known only later).
    mutating func patch(u32 value: UInt32, at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<(offset + 4), with: $0) }
    }
    mutating func pad(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }
}

/// Interns strings into one UTF-8 blob and hands out (offset, length) references.
struct StringTable {
    private(set) var blob: [UInt8] = []
    private var seen: [String: (UInt32, UInt32)] = [:]

    mutating func add(_ string: String) -> (offset: UInt32, length: UInt32) {
        if let ref = seen[string] { return ref }
        let utf8 = Array(string.utf8)
        let ref = (UInt32(blob.count), UInt32(utf8.count))
        blob.append(contentsOf: utf8)
        seen[string] = ref
        return ref
    }
}

extension BinaryWriter {
    mutating func ref(_ value: (offset: UInt32, length: UInt32)) {
        u32(value.offset)
        u32(value.length)
    }
}
