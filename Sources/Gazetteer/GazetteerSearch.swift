import Geo

/// How to search: how many results, limited to a country, biased towards a point.
public struct SearchOptions: Sendable, Hashable {
    /// At most this many results.
    public var limit: Int
    /// ISO alpha-2 code; only places in that country (and the country itself).
    public var countryCode: String?
    /// Lifts places near this point (pelias' focus.point): a place at the point weighs
    /// as if it were 100× bigger, fading to nothing by ~1,000 km, so nearby namesakes
    /// come first without burying a far bigger city.
    public var near: Coordinate?

    /// Options: a limit, a country to keep to, a point to rank by nearness.
    public init(limit: Int = 10, countryCode: String? = nil, near: Coordinate? = nil) {
        self.limit = limit
        self.countryCode = countryCode
        self.near = near
    }
}

/// One search answer.
public struct SearchResult: Sendable, Hashable {
    /// How the query met the name.
    public enum Match: Sendable, Hashable {
        /// The whole name.
        case exact
        /// The beginning of the name.
        case prefix
        /// The beginning of the name, with this many typos.
        case typo(Int)
    }

    /// The place found.
    public var place: Place
    /// The name that matched, as written ("München" for a query "munch" that found Munich).
    public var matchedName: String
    /// How the query matched it.
    public var match: Match
    /// Higher is better; comparable only within one search.
    public var score: Double
    /// Distance from ``SearchOptions/near``, metres, when a point was given.
    public var distance: Double?
}

extension Gazetteer {
    /// Queries shorter than this many characters (after folding) are not searched: a
    /// single letter matches tens of thousands of names (seed 000 asks for 2). Lengths
    /// are ``SearchKey/typedLength(_:)``: one Chinese character is as much as two letters.
    public static let minimumQueryLength = 2

    /// Fewer letters than this match alternate names only whole ("Edo" is Tokyo), not as
    /// their start: two or three letters begin some nickname or transliteration of every
    /// big city ("Co" was China through "Cộng hòa…", "Ed" Tokyo, "Dan" Singapore through
    /// "Danmaxi"). From four letters, exonyms being typed count ("Kope" → Copenhagen).
    public static let alternatePrefixMinimum = 4

    /// Typo matches are searched when fewer exact and prefix matches than this exist.
    public static let typoSearchBelow = 3

    /// The score of a place of 100,000 people (8·log2): a prefix match this strong
    /// makes the typo walk unnecessary.
    static let wellKnownScore = 132.9

    /// True when `query` is long enough to search.
    public static func isSearchable(_ query: String) -> Bool {
        SearchKey.typedLength(SearchKey.fold(query)) >= minimumQueryLength
    }

    /// Places, regions and countries whose names match `query`, best first.
    ///
    /// Contract: case, accents and punctuation do not matter (``SearchKey``); a query
    /// matches a name it is a prefix of, with exact names ranked up; typos are tolerated
    /// (see ``TypoMatcher``) when fewer than ``typoSearchBelow`` exact or prefix matches
    /// exist, and ranked below every exact and prefix match; a qualifier
    /// after a comma or as the last or first word ("Paris, France", "Springfield IL",
    /// "Japan, Tokyo") restricts an exact name to that country or admin-1 region and
    /// ranks it first. Within a tier, bigger places (capitals weighted up) come first.
    /// When nothing matches, an official long form finds its short name
    /// (``OfficialName``: "Frankenthal (Pfalz)" → Frankenthal, in Rheinland-Pfalz first).
    /// Each place appears once. Unsearchable queries (too short, only punctuation) give
    /// an empty list. Thread-safe; allocates only its results and working sets.
    public func search(_ query: String, options: SearchOptions = SearchOptions()) -> [SearchResult] {
        let limit = max(0, min(options.limit, 1000))
        let folded = SearchKey.fold(query)
        guard limit > 0, SearchKey.typedLength(folded) >= Self.minimumQueryLength else { return [] }
        var countryFilter: Set<UInt16>? = nil
        if let code = options.countryCode {
            countryFilter = countries(named: SearchKey.fold(code))
            if countryFilter!.isEmpty { return [] }
        }
        let letters = query.unicodeScalars.filter(\.properties.isAlphabetic)
        let codesAreMeant = !letters.isEmpty && letters.allSatisfy(\.properties.isUppercase)
        var pool = CandidatePool(gazetteer: self, near: options.near, codesAreMeant: codesAreMeant)

        for interpretation in QualifiedQuery.interpretations(of: query) {
            var filter = TargetFilter(countries: countryFilter)
            for qualifier in interpretation.qualifiers {
                let regions = admin1Regions(named: qualifier)
                var countries = self.countries(named: qualifier)
                if let countryFilter { countries.formIntersection(countryFilter) }
                guard !regions.isEmpty || !countries.isEmpty else {
                    filter.impossible = true
                    break
                }
                filter.anyOf.append((countries, regions))
            }
            if filter.impossible { continue }
            collect(name: interpretation.name, filter: filter, prefix: false, tier: 2, limit: limit, into: &pool)
        }

        let key = Array(folded.utf8)
        let filter = TargetFilter(countries: countryFilter)
        collect(name: folded, filter: filter, prefix: true, tier: 1, limit: limit, into: &pool)

        // Typos are looked for only when the exact and prefix matches leave the list
        // nearly empty and none is exact: a name typed right ("Amsterdam") needs no
        // neighbours, and the walk is the one costly step of a search. A typo in the
        // first letters is tried only when nothing at all was found.
        // Nor when a well-known place already starts with the query ("Singapor",
        // "Mexico Ci"): typo matches would rank below it anyway, and the user is typing
        // its name. "Parsi" (only Parsippany, 53,000) still looks for Paris.
        if pool.count < min(limit, Self.typoSearchBelow) && !pool.hasExactMatch
            && pool.bestNameScore < Self.wellKnownScore
        {
            let allowance = TypoMatcher.allowance(forLength: folded.count)
            // Cheapest first: one typo (most are one: "Londn", "Macnhester") after two
            // letters typed right, then after one; then two typos; none fixed only when
            // nothing at all was found. Each step runs only while the ones before found
            // no typo match: a costlier walk would only add matches ranked below them.
            var attempts = [(allowance: 1, fixed: 1)]
            if folded.count >= 4 { attempts.insert((1, 2), at: 0) }
            if allowance >= 2 { attempts.append((2, 2)) }
            attempts.append((allowance, 0))
            for (allowed, fixed) in attempts where allowance > 0 {
                if pool.typoCount > 0 || (fixed == 0 && pool.count > 0) { break }
                var matcher = TypoMatcher(index: index, query: key, allowance: allowed, fixedPrefix: fixed)
                matcher.run { range, prefixLength, distance in
                    guard distance > 0 else { return }
                    for entry in best(in: range, prefixLength: prefixLength, filter: filter, count: limit * 2) {
                        pool.offer(entry: entry, match: .typo(distance), tier: 0)
                    }
                }
            }
        }
        // Nothing at all, typos included: an official long form of a name the data holds
        // short ("Frankenthal (Pfalz)", "Weiden in der Oberpfalz").
        if pool.count == 0 {
            collectOfficialNames(of: query, countries: countryFilter, limit: limit, into: &pool)
        }
        return pool.results(limit: limit)
    }

    /// The best `limit` matches of `query` (see ``search(_:options:)``).
    public func search(_ query: String, limit: Int) -> [SearchResult] {
        search(query, options: SearchOptions(limit: limit))
    }

    /// The place a person would say `coordinate` is in (``locality(for:)``), with the
    /// distance and bearing from it.
    public func reverse(_ coordinate: Coordinate) -> NearestPlace? { locality(for: coordinate) }

    /// Offers the exact (and, with `prefix`, the prefix) matches of `name` to the pool.
    func collect(
        name: String, filter: TargetFilter, prefix: Bool, tier: Int, limit: Int, into pool: inout CandidatePool
    ) {
        let key = Array(name.utf8)
        guard !key.isEmpty else { return }
        let range = index.prefixRange(key)
        let exact = index.exactRange(key, in: range)
        // Exact namesakes are few; all of them compete, so location bias can pick one.
        for entry in exact.prefix(5000) where filter.admits(entry, in: self) {
            pool.offer(entry: entry, match: .exact, tier: tier)
        }
        guard prefix, exact.upperBound < range.upperBound else { return }
        let rest = exact.upperBound..<range.upperBound
        let wanted = max(limit * 4, 32)
        let primaryOnly = SearchKey.typedLength(name) < Self.alternatePrefixMinimum
        var candidates: [Int]?
        if filter.isEmpty, rest.count > GazetteerFormat.hotThreshold, let hot = index.hotEntries(key) {
            let usable = hot.filter {
                !exact.contains($0) && !index.isExactOnly($0) && !(primaryOnly && index.isAlternate($0))
            }
            // The stored list ranks every kind of name, so the primary names in it are
            // the best primary names of the range; only if it holds fewer than a page
            // of them is the range itself scanned.
            if !primaryOnly || usable.count >= limit { candidates = usable }
        }
        for entry in candidates
            ?? best(in: rest, filter: filter, count: wanted, scanLimit: rest.count, primaryOnly: primaryOnly)
        {
            pool.offer(entry: entry, match: .prefix, tier: tier)
        }
    }

    /// The `count` entries of `range` (all keys sharing their first `prefixLength`
    /// bytes) with the highest prefix importance that pass `filter`: the precomputed
    /// lists when the range is a big unfiltered hot prefix, else a linear scan.
    func best(in range: Range<Int>, prefixLength: Int, filter: TargetFilter, count: Int) -> [Int] {
        if filter.isEmpty, range.count > GazetteerFormat.hotThreshold, !range.isEmpty {
            let prefix = Array(index.key(range.lowerBound).prefix(prefixLength))
            if let hot = index.hotEntries(prefix, count: count) { return hot }
        }
        return best(in: range, filter: filter, count: count, scanLimit: range.count)
    }

    /// `primaryOnly`: alternate names do not count (see ``alternatePrefixMinimum``).
    private func best(
        in range: Range<Int>, filter: TargetFilter, count: Int, scanLimit: Int, primaryOnly: Bool = false
    ) -> [Int] {
        var top: [(importance: Int, entry: Int)] = []
        top.reserveCapacity(count + 1)
        var floor = -1
        for entry in range.prefix(scanLimit) {
            let importance = index.prefixImportance(entry)
            if top.count >= count && importance <= floor { continue }
            guard !index.isExactOnly(entry), !(primaryOnly && index.isAlternate(entry)),
                filter.admits(entry, in: self)
            else { continue }
            let position = top.firstIndex { $0.importance < importance } ?? top.count
            top.insert((importance, entry), at: position)
            if top.count > count { top.removeLast() }
            if top.count >= count { floor = top[top.count - 1].importance }
        }
        return top.map(\.entry)
    }

    /// The place, region or country an entry points at.
    func target(of entry: Int) -> Place? {
        let target = index.target(entry)
        switch index.kind(entry) {
        case .place: return target < count ? place(at: target) : nil
        case .admin1: return admin1Place(target)
        case .country: return countryPlace(target)
        }
    }

    /// The name of entry `entry` as written in the data.
    func originalName(of entry: Int) -> String {
        let ref = index.originalRef(entry)
        guard ref.offset <= strings.count, ref.length <= strings.count - ref.offset else { return "" }
        return String(
            decoding: strings.bytes(at: ref.offset, count: ref.length), as: UTF8.self)
    }
}

/// Which targets a search admits: an optional country set (`--country`) and, per
/// qualifier, a set of countries or regions of which the target must be in one.
struct TargetFilter {
    var countries: Set<UInt16>?
    var anyOf: [(countries: Set<UInt16>, regions: Set<UInt16>)] = []
    var impossible = false

    var isEmpty: Bool { countries == nil && anyOf.isEmpty }

    func admits(_ entry: Int, in gazetteer: Gazetteer) -> Bool {
        if isEmpty { return true }
        let target = gazetteer.index.target(entry)
        let country: UInt16
        let region: UInt16
        switch gazetteer.index.kind(entry) {
        case .place:
            guard target < gazetteer.count else { return false }
            country = gazetteer.countryIndex(ofPlace: target)
            region = gazetteer.admin1Index(ofPlace: target)
        case .admin1:
            guard target < gazetteer.admin1Count else { return false }
            country = gazetteer.countryIndex(ofAdmin1: target)
            region = UInt16(clamping: target)
        case .country:
            country = UInt16(clamping: target)
            region = GazetteerFormat.none16
        }
        if let countries, !countries.contains(country) { return false }
        for qualifier in anyOf where !qualifier.countries.contains(country) && !qualifier.regions.contains(region) {
            return false
        }
        return true
    }
}
