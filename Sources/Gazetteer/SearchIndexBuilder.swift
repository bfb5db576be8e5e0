import Foundation

/// What a search entry points at: a populated place, an admin-1 region or a country.
enum SearchTargetKind: UInt8, Sendable {
    case place = 0
    case admin1 = 1
    case country = 2

    /// Set in an entry's kind byte for names that match only exactly.
    static let exactOnlyFlag: UInt8 = 0x80
    /// Set for names other than the target's primary name.
    static let alternateFlag: UInt8 = 0x40
    /// A place's seat bits: the capital of its country (PPLC) or the seat of its
    /// admin-1 region (PPLA).
    static let seatMask: UInt8 = 0x0C
    static let seatFlag: UInt8 = 0x04
    static let capitalFlag: UInt8 = 0x08
    /// A place GeoNames knows by no other name at all.
    static let noOtherNameFlag: UInt8 = 0x10

    /// The seat and other-name bits of a place with GeoNames feature `featureCode` and
    /// `alternateNames` other names.
    static func placeFlags(featureCode: String, alternateNames: Int) -> UInt8 {
        (featureCode == "PPLC" ? capitalFlag : featureCode == "PPLA" ? seatFlag : 0)
            | (alternateNames == 0 ? noOtherNameFlag : 0)
    }
}

/// Builds the search sections (`KEYS`, `SIDX`, `SHOT`, `STOP`, `KTRI`) from every name of every
/// place, region and country.
///
/// Which names: the primary name, its ASCII spelling, and the alternate names people
/// type — exonyms ("München", "Londres", "Tokio"), older names ("Breslau"), and names in
/// their own script ("Москва", "東京", "القاهرة": a Russian or Chinese user types those) —
/// but not GeoNames' all-lower-case Latin machine transliterations ("lwndwn"), which
/// real names never are (scripts without case are not judged by it). Codes (ISO 3166-2
/// "abbr", IATA, postal, links) are not search keys; region codes serve as qualifiers
/// instead.
struct SearchIndexBuilder {
    struct Entry {
        var key: [UInt8]
        var target: UInt32
        var kind: SearchTargetKind
        /// Matches only as a whole word, never as a prefix or with typos: short codes
        /// ("NYC", "UK", "MUC"), which as prefixes would push big cities up for any
        /// three letters.
        var exactOnly: Bool
        /// Not the target's primary name: weighs less as a prefix or typo match.
        var alternate: Bool
        /// The target's population byte (``RankingWeights/populationByte(_:)``).
        var population: UInt8
        /// Seat and other-name bits (``SearchTargetKind/placeFlags(featureCode:alternateNames:)``).
        var placeFlags: UInt8
        var original: (offset: UInt32, length: UInt32)

        /// The kind byte as stored: kind, class bits and the exact-only flag.
        var kindByte: UInt8 {
            kind.rawValue | placeFlags | (exactOnly ? SearchTargetKind.exactOnlyFlag : 0)
                | (alternate ? SearchTargetKind.alternateFlag : 0)
        }
    }

    private(set) var entries: [Entry] = []

    /// Pseudo-languages of alternateNamesV2.txt that are not names a person types.
    static let nonNameLanguages: Set<String> = [
        "link", "wkdt", "post", "iata", "icao", "faac", "unlc", "abbr", "fr_1793", "tcid",
    ]

    /// Adds one target with all its names; the primary name's key comes first, so an
    /// alternate that folds to the same key does not replace how the name is written.
    mutating func add(
        target: Int, kind: SearchTargetKind, population: Int, placeFlags: UInt8 = 0, primary: String,
        alternates: [String], codes: [String] = [], strings: inout StringTable
    ) {
        let populationByte = RankingWeights.populationByte(population)
        var seen = Set<String>()
        for (position, name) in ([primary] + alternates + codes).enumerated() {
            if position > 0 && position <= alternates.count {
                guard !SearchKey.isLatin(name) || name != name.lowercased() else { continue }
            }
            let key = SearchKey.fold(name)
            let keyBytes = Array(key.utf8)
            guard keyBytes.count >= 1, keyBytes.count <= 255, name.utf8.count <= 255, seen.insert(key).inserted
            else { continue }
            let letters = name.unicodeScalars.filter(\.properties.isAlphabetic)
            let isCode =
                position > alternates.count
                || (position > 0 && letters.count <= 4 && !name.contains(" ")
                    && letters.allSatisfy { $0.properties.isUppercase })
            entries.append(
                Entry(
                    key: keyBytes, target: UInt32(target), kind: kind, exactOnly: isCode, alternate: position > 0,
                    population: populationByte, placeFlags: kind == .place ? placeFlags : 0,
                    original: strings.add(name)))
        }
    }

    /// The serialised sections: keys blob, entries, hot prefixes and their top lists,
    /// and the top of the key trie.
    func build() -> (keys: [UInt8], entries: [UInt8], hot: [UInt8], tops: [UInt8], trie: [UInt8]) {
        // Within a key, by population: facts only, so no ranking weight is baked in.
        let sorted = entries.sorted { a, b in
            if a.key != b.key { return a.key.lexicographicallyPrecedes(b.key) }
            if a.population != b.population { return a.population > b.population }
            if a.kind != b.kind { return a.kind.rawValue < b.kind.rawValue }
            return a.target < b.target
        }
        var keys: [UInt8] = []
        var keyOffsets = [UInt32](repeating: 0, count: sorted.count)
        var entrySection = BinaryWriter()
        for (index, entry) in sorted.enumerated() {
            if index == 0 || sorted[index - 1].key != entry.key {
                keyOffsets[index] = UInt32(keys.count)
                keys.append(contentsOf: entry.key)
            } else {
                keyOffsets[index] = keyOffsets[index - 1]
            }
            entrySection.u32(keyOffsets[index])
            entrySection.u32(entry.target)
            entrySection.u32(entry.original.offset)
            entrySection.u8(UInt8(entry.key.count))
            entrySection.u8(UInt8(clamping: entry.original.length))
            entrySection.u8(entry.kindByte)
            entrySection.u8(entry.population)
        }

        // Hot prefixes, depth by depth, until no prefix has more than the threshold.
        var hot: [(prefix: ArraySlice<UInt8>, offset: UInt32, tops: [UInt32])] = []
        // Each class's best, apart: the weights (``RankingWeights``) are added when
        // searching, and within a class they add the same to every entry, so the best
        // of the range under any weights are among the best of their own class.
        func tops(_ range: Range<Int>) -> [UInt32] {
            let byClass = Dictionary(grouping: range.filter { !sorted[$0].exactOnly }) {
                sorted[$0].kindByte & RankingWeights.classMask
            }
            var records: [UInt32] = []
            for kindByte in byClass.keys.sorted() {
                let best = byClass[kindByte]!.sorted {
                    let a = sorted[$0].population
                    let b = sorted[$1].population
                    return a > b || (a == b && $0 < $1)
                }
                .prefix(GazetteerFormat.hotTopCount)
                records.append(UInt32(kindByte) | UInt32(best.count) << 8)
                records += best.map { UInt32($0) | UInt32(sorted[$0].population) << 24 }
            }
            return records
        }
        // A record holds its entry in 24 bits. A bigger import (GeoNames' allCountries
        // with every alternate name can pass 16.7 million names) gets no precomputed
        // lists rather than wrong ones: its big prefixes are then scanned.
        let recordsFit = sorted.count < 1 << 24
        var depth = 1
        while recordsFit {
            var found = false
            var start = 0
            while start < sorted.count {
                guard sorted[start].key.count >= depth else {
                    start += 1
                    continue
                }
                let prefix = sorted[start].key[0..<depth]
                var end = start + 1
                while end < sorted.count, sorted[end].key.count >= depth, sorted[end].key[0..<depth] == prefix {
                    end += 1
                }
                if end - start > GazetteerFormat.hotThreshold {
                    found = true
                    hot.append((prefix, keyOffsets[start], tops(start..<end)))
                }
                start = end
            }
            if !found { break }
            depth += 1
        }
        hot.sort { $0.prefix.lexicographicallyPrecedes($1.prefix) }
        var hotSection = BinaryWriter()
        var topSection = BinaryWriter()
        var topCount: UInt32 = 0
        for item in hot {
            hotSection.u32(item.offset)
            hotSection.u32(UInt32(item.prefix.count))
            hotSection.u32(topCount)
            hotSection.u32(UInt32(item.tops.count))
            for top in item.tops { topSection.u32(top) }
            topCount += UInt32(item.tops.count)
        }
        let trie = KeyTrie.build(count: sorted.count) { sorted[$0].key }
        return (keys, entrySection.bytes, hotSection.bytes, topSection.bytes, trie)
    }
}

/// The centre and summary of a group of places (an admin-1 region or a country): the
/// mean of their unit vectors, so a group across the antimeridian is not centred on
/// the other side of the world; the time zone of its most populous place.
struct RegionSummary {
    private var x = 0.0
    private var y = 0.0
    private var z = 0.0
    private(set) var population = 0
    private(set) var places = 0
    private var biggest = -1
    private(set) var timezone = ""

    mutating func add(latitude: Double, longitude: Double, population: Int, timezone: String) {
        let v = unitVector(latitude: latitude, longitude: longitude)
        x += v.0
        y += v.1
        z += v.2
        self.population += population
        places += 1
        if population > biggest {
            biggest = population
            self.timezone = timezone
        }
    }

    var centre: (latitude: Double, longitude: Double) {
        let norm = (x * x + y * y + z * z).squareRoot()
        guard norm > 0 else { return (0, 0) }
        return (asin(z / norm) * 180 / .pi, atan2(y, x) * 180 / .pi)
    }
}
