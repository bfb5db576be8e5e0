/// Finds the index entries whose key starts with something within a few typos of the
/// query: the sorted entries are walked as a trie (a key range per prefix), carrying one
/// row of the edit-distance table per level and abandoning a branch as soon as every
/// cell of its row exceeds the allowance. Where the file lists a node's children
/// (``KeyTrie``) they are read from the list; smaller nodes are bisected.
///
/// Contract: the distance is the optimal-string-alignment distance (insertion,
/// deletion, substitution, and swapping two neighbouring letters each cost one, so
/// "Sydeny" is one typo from "Sydney") between the query and the nearest prefix of a
/// key. Allowance: 1 typo from 4 characters, 2 from 8; shorter queries get none.
/// `visit` receives each matching key range, the length of the prefix its keys share,
/// and its distance; ranges may nest (a
/// deeper, closer range is reported inside a shallower one). The walk is bounded by
/// `maximumNodes`, so a pathological query costs a bounded time.
struct TypoMatcher {
    let index: SearchIndex
    let query: [UInt8]
    let allowance: Int
    /// How many leading bytes must be typed right: the walk is ~25× cheaper per fixed
    /// letter, and people rarely mistype the first letters of a name; the caller retries
    /// with none fixed when nothing matched.
    let fixedPrefix: Int
    var maximumNodes = 50_000

    static func allowance(forLength length: Int) -> Int {
        length >= 8 ? 2 : (length >= 4 ? 1 : 0)
    }

    private var nodes = 0

    init(index: SearchIndex, query: [UInt8], allowance: Int, fixedPrefix: Int) {
        self.index = index
        self.query = query
        self.allowance = allowance
        self.fixedPrefix = min(fixedPrefix, query.count)
    }

    mutating func run(_ visit: (Range<Int>, Int, Int) -> Void) {
        guard allowance > 0, !query.isEmpty, index.count > 0 else { return }
        let width = query.count + 1
        // One row per depth in one buffer: no allocation per trie node. Keys are at
        // most 255 bytes long, and no branch survives beyond query + allowance letters.
        // Unsafe buffers, allocated once per walk: the arrays they replace were retained
        // and released at every node, a tenth of the walk.
        let depths = min(255, query.count + allowance) + 2
        rows = .allocate(capacity: width * depths)
        rows.initialize(repeating: 0)
        for j in 0...query.count { rows[j] = Int32(j) }
        bytes = .allocate(capacity: depths)
        bytes.initialize(repeating: 0)
        viable = .allocate(capacity: depths * Self.viablePerDepth)
        viable.initialize(repeating: 0)
        typed = .allocate(capacity: query.count)
        _ = typed.initialize(from: query)
        defer {
            for buffer in [
                UnsafeMutableRawBufferPointer(rows), UnsafeMutableRawBufferPointer(bytes),
                UnsafeMutableRawBufferPointer(viable), UnsafeMutableRawBufferPointer(typed),
            ] {
                buffer.deallocate()
            }
        }
        walk(depth: 0, range: 0..<index.count, list: index.trie?.root ?? KeyTrie.none, reported: Int32.max, visit)
    }

    private var rows = UnsafeMutableBufferPointer<Int32>(start: nil, count: 0)
    private var bytes = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    /// The query's bytes, for the inner loops.
    private var typed = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)

    /// `list`: the node's children in the ``KeyTrie``, or `KeyTrie.none` (no table, or
    /// a node small enough to bisect).
    private mutating func walk(
        depth: Int, range: Range<Int>, list: UInt32, reported: Int32, _ visit: (Range<Int>, Int, Int) -> Void
    ) {
        guard (depth + 2) * (query.count + 1) <= rows.count else { return }
        if list != KeyTrie.none, let trie = index.trie {
            walk(trie: trie, children: trie.children(list), depth: depth, range: range, reported: reported, visit)
            return
        }
        var start = range.lowerBound
        // Keys that end at this depth have no child.
        while start < range.upperBound, index.key(start).count <= depth { start += 1 }
        if let count = viableBytes(depth: depth) {
            // Only a few next letters can stay within the allowance: look those children
            // up by bisection instead of visiting every child.
            for position in 0..<count {
                let byte = viable[depth * Self.viablePerDepth + position]
                let low = byte == 0 ? start : index.end(of: byte - 1, at: depth, in: start..<range.upperBound)
                let end = index.end(of: byte, at: depth, in: low..<range.upperBound)
                guard low < end else { continue }
                nodes += 1
                if nodes > maximumNodes { return }
                visitChild(byte: byte, range: low..<end, list: KeyTrie.none, depth: depth, reported: reported, visit)
            }
            return
        }
        while start < range.upperBound {
            nodes += 1
            if nodes > maximumNodes { return }
            let byte = index.byte(of: start, at: depth)
            // A child's run is found by galloping from its start, then bisection: the
            // cost grows with the child's size, not with its parent's.
            var step = 1
            var known = start + 1
            while start + step < range.upperBound, index.byte(of: start + step, at: depth) == byte {
                known = start + step + 1
                step *= 2
            }
            let end = index.end(of: byte, at: depth, in: known..<min(range.upperBound, start + step))
            visitChild(byte: byte, range: start..<end, list: KeyTrie.none, depth: depth, reported: reported, visit)
            start = end
        }
    }

    /// The same walk over a node the trie lists: its children are read, not bisected.
    private mutating func walk(
        trie: KeyTrie, children: KeyTrie.Children, depth: Int, range: Range<Int>, reported: Int32,
        _ visit: (Range<Int>, Int, Int) -> Void
    ) {
        if let count = viableBytes(depth: depth) {
            for position in 0..<count {
                guard let child = trie.child(viable[depth * Self.viablePerDepth + position], in: children) else {
                    continue
                }
                nodes += 1
                if nodes > maximumNodes { return }
                visitChild(
                    byte: trie.byte(child, of: children), range: trie.range(of: child, in: children, parent: range),
                    list: trie.list(child, of: children), depth: depth, reported: reported, visit)
            }
            return
        }
        for child in children.indices {
            nodes += 1
            if nodes > maximumNodes { return }
            let childRange = trie.range(of: child, in: children, parent: range)
            guard !childRange.isEmpty else { continue }
            visitChild(
                byte: trie.byte(child, of: children), range: childRange, list: trie.list(child, of: children),
                depth: depth, reported: reported, visit)
        }
    }

    private mutating func visitChild(
        byte: UInt8, range: Range<Int>, list: UInt32, depth: Int, reported: Int32,
        _ visit: (Range<Int>, Int, Int) -> Void
    ) {
        let allowance = Int32(self.allowance)
        let (smallest, last) = fillRow(depth: depth, byte: byte)
        guard smallest <= allowance else { return }
        var bestSoFar = reported
        if last <= allowance && last < reported {
            visit(range, depth + 1, Int(last))
            bestSoFar = last
        }
        // Going deeper only helps while it can still lower the distance.
        if smallest < bestSoFar {
            bytes[depth] = byte
            walk(depth: depth + 1, range: range, list: list, reported: bestSoFar, visit)
        }
    }

    /// How many next letters one depth can have in `viable` (2 per band cell, band ≤ 5).
    static let viablePerDepth = 16

    /// Stores the next letters (at `depth`) that can keep some cell within the allowance,
    /// ascending and distinct, in `viable` at `depth × viablePerDepth`, and returns their
    /// number; nil when any letter can (the row still has slack).
    ///
    /// Within the fixed prefix only the query's own letter can. Past it, when every cell
    /// of the current row already equals the allowance, a cell stays within it only by a
    /// free diagonal step (the letter matches the query's at that column) or by a swap of
    /// neighbours completed at a column whose cell two rows up had slack.
    private mutating func viableBytes(depth: Int) -> Int? {
        let base = depth * Self.viablePerDepth
        guard base + Self.viablePerDepth <= viable.count else { return nil }
        if depth < fixedPrefix {
            viable[base] = typed[depth]
            return 1
        }
        let m = query.count
        let width = m + 1
        let k = allowance
        let row = depth * width
        let low = max(0, depth - k)
        let high = min(m, depth + k)
        guard low <= high else { return 0 }
        var smallest = Int32.max
        for j in low...high { smallest = min(smallest, rows[row + j]) }
        if depth <= k { smallest = min(smallest, Int32(depth)) }
        guard smallest >= Int32(k) else { return nil }
        var count = 0
        func add(_ byte: UInt8) {
            // Insertion into a sorted run of at most a dozen letters.
            var position = count
            while position > 0 && viable[base + position - 1] > byte { position -= 1 }
            if position > 0 && viable[base + position - 1] == byte { return }
            var move = count
            while move > position {
                viable[base + move] = viable[base + move - 1]
                move -= 1
            }
            viable[base + position] = byte
            count += 1
        }
        let first = max(1, depth + 1 - k)
        let last = min(m, depth + 1 + k)
        if first <= last {
            for j in first...last where count < Self.viablePerDepth - 1 {
                if rows[row + j - 1] <= Int32(k) { add(typed[j - 1]) }
                if depth >= 1, j >= 2, k >= 1, typed[j - 1] == bytes[depth - 1],
                    rows[(depth - 1) * width + j - 2] <= Int32(k - 1)
                {
                    add(typed[j - 2])
                }
            }
        }
        return count
    }

    private var viable = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)

    /// Computes the row for `byte` at `depth` (row depth + 1 from row depth and, for a
    /// swap of neighbours, row depth − 1); returns its smallest and last cell. Only the
    /// band of cells within `allowance` of the diagonal can stay within the allowance
    /// (Ukkonen): the rest is not computed, and the two cells bordering the band are set
    /// to allowance + 1 for the next row to read.
    @inline(__always)
    private mutating func fillRow(depth: Int, byte: UInt8) -> (Int32, Int32) {
        let m = query.count
        let width = m + 1
        let k = allowance
        let over = Int32(k + 1)
        let q = typed
        let i = depth + 1
        let previous = depth * width
        let current = i * width
        let beforePrevious = depth > 0 ? (depth - 1) * width : -1
        let previousByte: UInt8? = depth > 0 ? bytes[depth - 1] : nil
        let low = max(1, i - k)
        let high = min(m, i + k)
        rows[current] = Int32(i)
        var smallest = rows[current]
        if low > 1 { rows[current + low - 1] = over }
        if low <= high {
            for j in low...high {
                let cost: Int32 = q[j - 1] == byte ? 0 : 1
                var value = min(
                    rows[previous + j] + 1, rows[current + j - 1] + 1, rows[previous + j - 1] + cost)
                if j > 1, beforePrevious >= 0, let previousByte, q[j - 1] == previousByte, q[j - 2] == byte {
                    value = min(value, rows[beforePrevious + j - 2] + 1)
                }
                rows[current + j] = value
                smallest = min(smallest, value)
            }
        }
        if high < m { rows[current + high + 1] = over }
        return (smallest, high == m ? rows[current + m] : over)
    }
}
