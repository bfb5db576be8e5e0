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
}

/// Builds the search sections (`KEYS`, `SIDX`, `SHOT`, `STOP`) from every name of every
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
        var importance: UInt8
        var original: (offset: UInt32, length: UInt32)
    }

    private(set) var entries: [Entry] = []

    /// Pseudo-languages of alternateNamesV2.txt that are not names a person types.
    static let nonNameLanguages: Set<String> = [
        "link", "wkdt", "post", "iata", "icao", "faac", "unlc", "abbr", "fr_1793", "tcid",
    ]

    /// The start of an alternate name weighs a sixteenth of its place (−32): "Par" must
    /// be Paris, not Barcelona through its nickname "Parselona", and "San Fra" San
    /// Francisco, not Quito (twice the people, and a capital) through its long form "San
    /// Francisco de Quito". A whole alternate name weighs an eighth
    /// (``exactAlternatePenalty``) and earns the exact bonus (CandidatePool, +40) on top:
    /// "Londres" is London, "New York" the city, not the state.
    static let alternatePenalty = 32
    static let exactAlternatePenalty = 24

    /// The importance an entry competes with as a prefix or typo match.
    var effectiveImportance: (Entry) -> Int = { entry in
        Int(entry.importance) - (entry.alternate ? SearchIndexBuilder.alternatePenalty : 0)
    }

    /// Adds one target with all its names; the primary name's key comes first, so an
    /// alternate that folds to the same key does not replace how the name is written.
    mutating func add(
        target: Int, kind: SearchTargetKind, importance: UInt8, primary: String, alternates: [String],
        codes: [String] = [], strings: inout StringTable
    ) {
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
                    importance: importance, original: strings.add(name)))
        }
    }

    /// 8·log2 of the weighted population, 0...255. Capitals weigh 3×, admin seats 1.5×;
    /// regions and countries a quarter (their population is spread over many places), so
    /// "Par" is Paris before Paraguay while "Cal" is California.
    ///
    /// A place GeoNames knows by no other name at all (`alternateNames` 0: no exonym, no
    /// spelling in any language) weighs half. Towns people outside them talk about are
    /// named in other languages; what has no other name is mostly a neighbourhood or
    /// census tract entered as a place ("Woodbridge" of 25,000 in Irvine, CA, next to
    /// Woodbridge, NJ of 19,000 with 16 names). Halving reorders only places within a
    /// factor of two of each other: of the 4,527 names shared by several places, one of
    /// 20,000 people or more, 67 change their first result (docs/performance.md).
    /// `alternateNames` is nil for regions and countries.
    static func importance(
        population: Int, kind: SearchTargetKind, featureCode: String, alternateNames: Int? = nil
    ) -> UInt8 {
        var weight = Double(max(population, 0)) + 1
        switch kind {
        case .place:
            if alternateNames == 0 { weight /= 2 }
            if featureCode == "PPLC" {
                weight *= 3
            } else if featureCode == "PPLA" {
                weight *= 1.5
            }
        case .admin1:
            weight /= 32
        case .country:
            weight /= 4
        }
        return UInt8(clamping: Int((8 * log2(max(weight, 1))).rounded()))
    }

    /// The serialised sections: keys blob, entries, hot prefixes and their top lists.
    func build() -> (keys: [UInt8], entries: [UInt8], hot: [UInt8], tops: [UInt8]) {
        let sorted = entries.sorted { a, b in
            if a.key != b.key { return a.key.lexicographicallyPrecedes(b.key) }
            let ia = effectiveImportance(a)
            let ib = effectiveImportance(b)
            if ia != ib { return ia > ib }
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
            entrySection.u8(
                entry.kind.rawValue | (entry.exactOnly ? SearchTargetKind.exactOnlyFlag : 0)
                    | (entry.alternate ? SearchTargetKind.alternateFlag : 0))
            entrySection.u8(entry.importance)
        }

        // Hot prefixes, depth by depth, until no prefix has more than the threshold.
        var hot: [(prefix: ArraySlice<UInt8>, offset: UInt32, tops: [UInt32])] = []
        var depth = 1
        while true {
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
                    let best = (start..<end).filter { !sorted[$0].exactOnly }.sorted {
                        let a = effectiveImportance(sorted[$0])
                        let b = effectiveImportance(sorted[$1])
                        return a > b || (a == b && $0 < $1)
                    }
                    .prefix(GazetteerFormat.hotTopCount)
                    hot.append((prefix, keyOffsets[start], best.map { UInt32($0) }))
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
        return (keys, entrySection.bytes, hotSection.bytes, topSection.bytes)
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
