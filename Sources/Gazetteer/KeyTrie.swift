/// The top of the trie of search keys: for every prefix that more than
/// ``KeyTrie/threshold`` entries share, the bytes that can follow it and where each
/// child's entries start (section `KTRI`).
///
/// Why: the typo walk (``TypoMatcher``) visits hundreds of trie nodes per query, and
/// without this table every node's children are found by bisecting the sorted entries,
/// two scattered cache lines (entry, key) per probe: 3,364 probes over 2,237 lines for
/// "Mardid". On a machine whose memory answers
/// in 100–200 ns that, not arithmetic, was the walk's time. Here a node's children are
/// one contiguous run of bytes and one of starts. Below the threshold a node's entries
/// fill a few cache lines, and bisecting them stays cheap.
///
/// Layout: u32 reserved (0), u32 the root's list, then one block per listed node, 4-byte
/// aligned: u8 children − 1, the children's bytes (ascending), padding to 4, then per
/// child u32 start (entry index of its first entry) and u32 list (its own block's
/// offset in the section, or ``none``). A list is a block's offset. A child's entries
/// end where its next sibling's start, the last child's where its parent's do; keys
/// that end at the parent's depth sort before its first child. One block holds what a
/// step of the walk reads, so a node with a handful of children costs one cache line.
///
/// Contract: reads are bounds-checked (``SectionReader``), and ``range(of:in:parent:)``
/// keeps every child inside its parent, so a damaged table gives wrong matches, never
/// a crash or an endless walk. The section is optional: without it (older data) the
/// walk bisects as before, with the same answers.
struct KeyTrie: Sendable {
    static let none = UInt32.max
    /// Nodes with at most this many entries keep no list.
    static let threshold = 32

    /// A listed node's children: its block and how many.
    struct Children {
        let block: Int
        let count: Int
        /// Where the (start, list) records begin.
        var records: Int { block + ((1 + count + 3) & ~3) }
        var indices: Range<Int> { 0..<count }
    }

    private let data: SectionReader
    let root: UInt32

    /// Reads the section; nil when it is too short for its header.
    init?(section: SectionReader) {
        guard section.count >= 8, section.u32(0) == 0 else { return nil }
        data = section
        root = section.u32(4)
    }

    @inline(__always) func children(_ list: UInt32) -> Children {
        let block = Int(list)
        return Children(block: block, count: Int(data.u8(block)) + 1)
    }

    @inline(__always) func byte(_ child: Int, of children: Children) -> UInt8 {
        data.u8(children.block + 1 + child)
    }
    @inline(__always) func list(_ child: Int, of children: Children) -> UInt32 {
        data.u32(children.records + child * 8 + 4)
    }

    /// The entries of `child` inside `parent` (its parent's entries).
    @inline(__always) func range(of child: Int, in children: Children, parent: Range<Int>) -> Range<Int> {
        let base = children.records + child * 8
        let low = min(max(Int(data.u32(base)), parent.lowerBound), parent.upperBound)
        let next = child + 1 < children.count ? Int(data.u32(base + 8)) : parent.upperBound
        return low..<max(low, min(next, parent.upperBound))
    }

    /// The child of `children` that `byte` leads to, if that byte can follow.
    @inline(__always) func child(_ byte: UInt8, in children: Children) -> Int? {
        var low = 0
        var high = children.count
        while low < high {
            let mid = (low + high) / 2
            if self.byte(mid, of: children) < byte { low = mid + 1 } else { high = mid }
        }
        return low < children.count && self.byte(low, of: children) == byte ? low : nil
    }

    /// Problems of a damaged table: blocks that overrun the section, lists that are
    /// not the start of a block.
    func problems() -> [String] {
        var blocks = Set<UInt32>()
        var lists: [UInt32] = [root]
        var offset = 8
        while offset < data.count {
            let children = Children(block: offset, count: Int(data.u8(offset)) + 1)
            let end = children.records + children.count * 8
            guard end <= data.count else { return ["KTRI: a block at \(offset) overruns the table"] }
            blocks.insert(UInt32(offset))
            for child in children.indices { lists.append(list(child, of: children)) }
            offset = end
        }
        let stray = lists.filter { $0 != Self.none && !blocks.contains($0) }
        return stray.isEmpty ? [] : ["KTRI: \(stray.count) lists that are not a block"]
    }

    /// The section for `count` keys sorted ascending; `key(i)` is the i-th.
    static func build<Key: RandomAccessCollection<UInt8>>(count: Int, key: (Int) -> Key) -> [UInt8] {
        var out = BinaryWriter()
        out.u32(0)
        out.u32(none)
        func byte(_ i: Int, _ depth: Int) -> UInt8 {
            let k = key(i)
            return k[k.index(k.startIndex, offsetBy: depth)]
        }
        /// Writes the block of the node over `range` at `depth` and its descendants'
        /// after it (depth first, the order the walk reads them); returns its list.
        func node(_ range: Range<Int>, depth: Int) -> UInt32 {
            guard range.count > threshold else { return none }
            var start = range.lowerBound
            while start < range.upperBound, key(start).count <= depth { start += 1 }
            var kids: [(byte: UInt8, start: Int)] = []
            while start < range.upperBound {
                let b = byte(start, depth)
                kids.append((b, start))
                start += 1
                while start < range.upperBound, byte(start, depth) == b { start += 1 }
            }
            guard !kids.isEmpty, kids.count <= 256 else { return none }
            out.pad(to: 4)
            let block = out.bytes.count
            out.u8(UInt8(kids.count - 1))
            out.raw(kids.map(\.byte))
            out.pad(to: 4)
            let records = out.bytes.count
            for kid in kids {
                out.u32(UInt32(kid.start))
                out.u32(none)
            }
            for (n, kid) in kids.enumerated() {
                let end = n + 1 < kids.count ? kids[n + 1].start : range.upperBound
                let list = node(kid.start..<end, depth: depth + 1)
                out.patch(u32: list, at: records + n * 8 + 4)
            }
            return UInt32(block)
        }
        let root = node(0..<count, depth: 0)
        out.patch(u32: root, at: 4)
        return out.bytes
    }
}
