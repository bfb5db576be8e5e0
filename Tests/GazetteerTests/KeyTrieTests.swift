import Foundation
import TestSupport
import Testing

@testable import Gazetteer

/// The top of the key trie (`KTRI`): what it records, and that the typo walk over it
/// visits exactly what bisecting the entries visits.
@Suite struct KeyTrieTests {
    /// 40 keys under "ab" (a node over the threshold), some ending at "ab" itself, and
    /// a few small branches that stay unlisted.
    static let keys: [[UInt8]] = {
        var keys: [String] = ["ab", "ab", "abc"]
        for letter in "cdefghij" { for n in 0..<5 { keys.append("ab\(letter)\(n)") } }
        keys += ["b", "ba", "c"]
        return keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
    }()

    @Test func listsTheChildrenOfBigNodesWithTheirStarts() throws {
        let bytes = KeyTrie.build(count: Self.keys.count) { Self.keys[$0] }
        let damage = GazetteerDamage(file: "trie")
        try bytes.withUnsafeBytes { raw in
            let trie = try #require(
                KeyTrie(section: SectionReader(base: raw.baseAddress!, count: raw.count, damage: damage)))
            #expect(trie.problems().isEmpty)
            let all = 0..<Self.keys.count
            let root = trie.children(trie.root)
            #expect(root.indices.map { trie.byte($0, of: root) } == Array("abc".utf8))
            let a = try #require(trie.child(UInt8(ascii: "a"), in: root))
            #expect(trie.range(of: a, in: root, parent: all) == 0..<43)
            #expect(trie.child(UInt8(ascii: "z"), in: root) == nil)
            // "b" has 2 keys, "c" 1: too small to list.
            let b = try #require(trie.child(UInt8(ascii: "b"), in: root))
            #expect(trie.list(b, of: root) == KeyTrie.none)
            #expect(trie.range(of: b, in: root, parent: all) == 43..<45)
            #expect(trie.range(of: b + 1, in: root, parent: all) == 45..<46, "the last child ends with its parent")
            // "a" → "ab" → its children c...j; the two keys "ab" come before them.
            let underA = trie.children(trie.list(a, of: root))
            let ab = try #require(trie.child(UInt8(ascii: "b"), in: underA))
            let abRange = trie.range(of: ab, in: underA, parent: 0..<43)
            let underAB = trie.children(trie.list(ab, of: underA))
            #expect(underAB.indices.map { trie.byte($0, of: underAB) } == Array("cdefghij".utf8))
            let c = try #require(trie.child(UInt8(ascii: "c"), in: underAB))
            #expect(trie.range(of: c, in: underAB, parent: abRange) == 2..<8, "abc, abc0 ... abc4, after ab, ab")
        }
    }

    /// A damaged table is reported, and keeps every child inside its parent: wrong
    /// matches at worst, never a read outside the section or a child larger than its
    /// parent.
    @Test func aDamagedTableKeepsChildrenInsideTheirParent() throws {
        var bytes = KeyTrie.build(count: Self.keys.count) { Self.keys[$0] }
        for i in 9..<bytes.count { bytes[i] = 0xFE }
        let damage = GazetteerDamage(file: "trie")
        try bytes.withUnsafeBytes { raw in
            let trie = try #require(
                KeyTrie(section: SectionReader(base: raw.baseAddress!, count: raw.count, damage: damage)))
            #expect(!trie.problems().isEmpty)
            let parent = 10..<20
            let children = trie.children(trie.root)
            for child in children.indices {
                let range = trie.range(of: child, in: children, parent: parent)
                #expect(range.lowerBound >= parent.lowerBound && range.upperBound <= parent.upperBound)
            }
        }
    }

    /// On the shipped data: for mistyped names (a letter dropped, doubled, swapped or
    /// replaced, from random keys), the walk with the table reports the same ranges,
    /// depths and distances in the same order as the walk that bisects.
    @Test func theWalkOverTheTableMatchesTheWalkThatBisects() throws {
        let gazetteer = try #require(try? Gazetteer(path: PackagePaths.file("data/gazetteer.bin").path))
        let index = gazetteer.index
        try #require(index.trie != nil, "the shipped data has a KTRI section")
        let bisecting = SearchIndex(
            entries: index.entries, keys: index.keys, hot: index.hot, tops: index.tops, trie: nil)
        var random = SystemRandomNumberGenerator()
        var walked = 0
        for _ in 0..<400 {
            var key = Array(index.key(Int.random(in: 0..<index.count, using: &random)).prefix(12))
            guard key.count >= 4 else { continue }
            let at = Int.random(in: 1..<key.count - 1, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: key.remove(at: at)
            case 1: key.insert(key[at], at: at)
            case 2: key.swapAt(at, at + 1)
            default: key[at] = UInt8.random(in: 97...122, using: &random)
            }
            let allowance = max(1, TypoMatcher.allowance(forLength: key.count))
            for fixed in [0, 1, 2] {
                func visits(_ index: SearchIndex) -> [String] {
                    var matcher = TypoMatcher(index: index, query: key, allowance: allowance, fixedPrefix: fixed)
                    var seen: [String] = []
                    matcher.run { range, length, distance in seen.append("\(range) \(length) \(distance)") }
                    return seen
                }
                let expected = visits(bisecting)
                #expect(visits(index) == expected, "\(String(decoding: key, as: UTF8.self)), \(fixed) fixed")
                walked += expected.count
            }
        }
        #expect(walked > 1000, "the queries found typo matches to compare")
    }
}
