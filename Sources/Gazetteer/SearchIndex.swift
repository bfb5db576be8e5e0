import Foundation

/// Read access to the search sections of `gazetteer.bin`: the entries sorted by folded
/// key, the key blob, and the precomputed best entries of hot prefixes.
///
/// Contract: every accessor is bounds-checked against the mapped sections (validated
/// at load), so a damaged index yields wrong-but-safe answers, never a crash; range
/// queries are binary searches over the sorted entries and allocate nothing.
struct SearchIndex: Sendable {
    let entries: SectionReader
    let keys: SectionReader
    let hot: SectionReader
    let tops: SectionReader
    /// The top of the key trie (`KTRI`), when the file has it.
    let trie: KeyTrie?
    let count: Int

    init(entries: SectionReader, keys: SectionReader, hot: SectionReader, tops: SectionReader, trie: KeyTrie?) {
        self.entries = entries
        self.keys = keys
        self.hot = hot
        self.tops = tops
        self.trie = trie
        self.count = entries.count / GazetteerFormat.entryStride
    }

    // MARK: - Entry fields

    @inline(__always) func target(_ i: Int) -> Int { Int(entries.u32(i * GazetteerFormat.entryStride + 4)) }
    @inline(__always) func kind(_ i: Int) -> SearchTargetKind {
        SearchTargetKind(rawValue: kindByte(i) & 0x03) ?? .place
    }
    /// Short codes ("NYC") match only as a whole.
    @inline(__always) func isExactOnly(_ i: Int) -> Bool {
        kindByte(i) & SearchTargetKind.exactOnlyFlag != 0
    }
    /// The stored kind byte: target kind, class bits (``RankingWeights``), flags.
    @inline(__always) func kindByte(_ i: Int) -> UInt8 { entries.u8(i * GazetteerFormat.entryStride + 14) }
    /// The target's population byte (8·log2 of population + 1).
    @inline(__always) func population(_ i: Int) -> Int { Int(entries.u8(i * GazetteerFormat.entryStride + 15)) }
    /// Importance as a prefix or typo match: population with its class's weight.
    @inline(__always) func prefixImportance(_ i: Int) -> Int {
        population(i) + RankingWeights.weight(of: kindByte(i), exact: false)
    }
    /// Importance as an exact match (a whole alternate name weighs less than its place,
    /// but more than its start does).
    @inline(__always) func exactImportance(_ i: Int) -> Int {
        population(i) + RankingWeights.weight(of: kindByte(i), exact: true)
    }
    @inline(__always) func isAlternate(_ i: Int) -> Bool {
        kindByte(i) & SearchTargetKind.alternateFlag != 0
    }

    /// Where the name as written lies in the string blob.
    func originalRef(_ i: Int) -> (offset: Int, length: Int) {
        let base = i * GazetteerFormat.entryStride
        return (Int(entries.u32(base + 8)), Int(entries.u8(base + 13)))
    }

    /// The folded key of entry `i`, as raw bytes inside the mapped file.
    @inline(__always) func key(_ i: Int) -> UnsafeRawBufferPointer {
        let base = i * GazetteerFormat.entryStride
        let offset = Int(entries.u32(base))
        // Out of the key blob: no bytes, and the damage is noted by the reader.
        return keys.bytes(at: offset, count: Int(entries.u8(base + 12)))
    }

    /// Byte `depth` of key `i`; in a sorted range every key is longer than the depth
    /// walked, so a shorter one is damage (noted; 0 stands in).
    @inline(__always) func byte(of i: Int, at depth: Int) -> UInt8 {
        let k = key(i)
        guard depth < k.count else {
            keys.damage.note()
            return 0
        }
        return k[depth]
    }

    func keyString(_ i: Int) -> String { String(decoding: key(i), as: UTF8.self) }

    // MARK: - Ranges

    /// Compares the first `query.count` bytes of key `i` (or all of it, if shorter) with
    /// `query`: negative, zero (key starts with query) or positive.
    @inline(__always) private func comparePrefix(_ i: Int, _ query: UnsafeRawBufferPointer) -> Int {
        let k = key(i)
        let n = min(k.count, query.count)
        var index = 0
        while index < n {
            let a = k[index]
            let b = query[index]
            if a != b { return a < b ? -1 : 1 }
            index += 1
        }
        return k.count < query.count ? -1 : 0
    }

    /// Entries whose key starts with `query`.
    func prefixRange(_ query: [UInt8]) -> Range<Int> {
        query.withUnsafeBytes { q in
            var low = 0
            var high = count
            while low < high {
                let mid = (low + high) / 2
                if comparePrefix(mid, q) < 0 { low = mid + 1 } else { high = mid }
            }
            let start = low
            high = count
            while low < high {
                let mid = (low + high) / 2
                if comparePrefix(mid, q) <= 0 { low = mid + 1 } else { high = mid }
            }
            return start..<low
        }
    }

    /// The entries of `range` (a prefix range of `query`) whose key is exactly `query`:
    /// they sort first, because a key sorts before every longer key it is a prefix of.
    func exactRange(_ query: [UInt8], in range: Range<Int>) -> Range<Int> {
        var end = range.lowerBound
        while end < range.upperBound, key(end).count == query.count { end += 1 }
        return range.lowerBound..<end
    }

    /// The first entry in `range` (all sharing a prefix of length `depth`) whose byte at
    /// `depth` is greater than `byte`; keys ending at `depth` count as smaller than any byte.
    func end(of byte: UInt8, at depth: Int, in range: Range<Int>) -> Int {
        var low = range.lowerBound
        var high = range.upperBound
        while low < high {
            let mid = (low + high) / 2
            let k = key(mid)
            if k.count <= depth || k[depth] <= byte { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The best `count` entries of a hot prefix by prefix importance (ties: the earlier
    /// entry first), if `prefix` is one: a merge of its classes' lists, each sorted by
    /// population (see ``RankingWeights``).
    func hotEntries(_ prefix: [UInt8], count: Int = GazetteerFormat.hotTopCount) -> [Int]? {
        guard let records = hotRecords(prefix) else { return nil }
        // The classes: (next record, end, weight), at most a few dozen.
        var heads: [(next: Int, end: Int, weight: Int)] = []
        var position = records.lowerBound
        while position < records.upperBound {
            let header = tops.u32(position * 4)
            let end = min(records.upperBound, position + 1 + Int(header >> 8))
            heads.append((position + 1, end, RankingWeights.weight(of: UInt8(header & 0xFF), exact: false)))
            position = end
        }
        var best: [Int] = []
        best.reserveCapacity(count)
        while best.count < count {
            var chosen = -1
            var chosenImportance = Int.min
            var chosenEntry = Int.max
            for (n, head) in heads.enumerated() where head.next < head.end {
                let record = tops.u32(head.next * 4)
                let importance = Int(record >> 24) + head.weight
                let entry = Int(record & 0xFF_FFFF)
                if importance > chosenImportance || (importance == chosenImportance && entry < chosenEntry) {
                    (chosen, chosenImportance, chosenEntry) = (n, importance, entry)
                }
            }
            guard chosen >= 0 else { break }
            heads[chosen].next += 1
            if chosenEntry < self.count { best.append(chosenEntry) }
        }
        return best
    }

    /// The records in `STOP` of hot prefix `prefix`, if it is one.
    private func hotRecords(_ prefix: [UInt8]) -> Range<Int>? {
        let records = hot.count / GazetteerFormat.hotStride
        return prefix.withUnsafeBytes { q -> Range<Int>? in
            var low = 0
            var high = records
            while low < high {
                let mid = (low + high) / 2
                let base = mid * GazetteerFormat.hotStride
                let offset = Int(hot.u32(base))
                let length = Int(hot.u32(base + 4))
                guard offset <= keys.count, length <= keys.count - offset else { return nil }
                let p = keys.bytes(at: offset, count: length)
                if p.lexicographicallyPrecedes(q) { low = mid + 1 } else { high = mid }
            }
            guard low < records else { return nil }
            let base = low * GazetteerFormat.hotStride
            let offset = Int(hot.u32(base))
            let length = Int(hot.u32(base + 4))
            guard length == q.count, offset <= keys.count, length <= keys.count - offset,
                keys.bytes(at: offset, count: length).elementsEqual(q)
            else { return nil }
            let first = Int(hot.u32(base + 8))
            let n = Int(hot.u32(base + 12))
            guard first + n <= tops.count / 4 else { return nil }
            return first..<(first + n)
        }
    }
}
