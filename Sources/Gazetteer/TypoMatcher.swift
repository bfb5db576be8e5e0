/// Finds the index entries whose key starts with something within a few typos of the
/// query: the sorted entries are walked as a trie (a key range per prefix), carrying one
/// row of the edit-distance table per level and abandoning a branch as soon as every
/// cell of its row exceeds the allowance.
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
    /// When true, the first letter must be right: the walk is ~25× cheaper and first
    /// letters are rarely mistyped; the caller retries without it when nothing matched.
    let firstLetterFixed: Bool
    var maximumNodes = 50_000

    static func allowance(forLength length: Int) -> Int {
        length >= 8 ? 2 : (length >= 4 ? 1 : 0)
    }

    private var nodes = 0

    init(index: SearchIndex, query: [UInt8], allowance: Int, firstLetterFixed: Bool) {
        self.index = index
        self.query = query
        self.allowance = allowance
        self.firstLetterFixed = firstLetterFixed
    }

    mutating func run(_ visit: (Range<Int>, Int, Int) -> Void) {
        guard allowance > 0, !query.isEmpty, index.count > 0 else { return }
        let initial = Array(0...query.count)
        walk(
            depth: 0, range: 0..<index.count, previous: initial, beforePrevious: initial, previousByte: nil,
            reported: Int.max, visit)
    }

    private mutating func walk(
        depth: Int, range: Range<Int>, previous: [Int], beforePrevious: [Int], previousByte: UInt8?,
        reported: Int, _ visit: (Range<Int>, Int, Int) -> Void
    ) {
        let m = query.count
        var start = range.lowerBound
        // Keys that end at this depth have no child.
        while start < range.upperBound, index.key(start).count <= depth { start += 1 }
        var row = [Int](repeating: 0, count: m + 1)
        while start < range.upperBound {
            nodes += 1
            if nodes > maximumNodes { return }
            let byte = index.key(start)[depth]
            let end = index.end(of: byte, at: depth, in: start..<range.upperBound)
            defer { start = end }
            if firstLetterFixed && depth == 0 && byte != query[0] { continue }
            row[0] = depth + 1
            var smallest = row[0]
            for j in 1...m {
                let cost = query[j - 1] == byte ? 0 : 1
                var value = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
                if j > 1, let previousByte, query[j - 1] == previousByte, query[j - 2] == byte {
                    value = min(value, beforePrevious[j - 2] + 1)
                }
                row[j] = value
                smallest = min(smallest, value)
            }
            guard smallest <= allowance else { continue }
            var bestSoFar = reported
            if row[m] <= allowance && row[m] < reported {
                visit(start..<end, depth + 1, row[m])
                bestSoFar = row[m]
            }
            // Going deeper only helps while it can still lower the distance.
            if smallest < bestSoFar {
                walk(
                    depth: depth + 1, range: start..<end, previous: row, beforePrevious: previous,
                    previousByte: byte, reported: bestSoFar, visit)
            }
        }
    }
}
