import Geo
import Platform

/// Admin-1 regions and countries as search results and as qualifiers ("Paris, France",
/// "Springfield IL", "Toronto, CA").
///
/// Contract: a region or country is a ``Place`` with feature code "ADM1" or "PCLI",
/// centred on the mean position of its places (see the builder), with the time zone of
/// its most populous place; indices out of range give nil, never a trap.
extension Gazetteer {
    var countryCount: Int { countries.count / GazetteerFormat.countryStride }
    var admin1Count: Int { admin1.count / GazetteerFormat.admin1Stride }

    /// Country index of place `index` (0xFFFF when unknown).
    func countryIndex(ofPlace index: Int) -> UInt16 { places.u16(index * GazetteerFormat.placeStride + 26) }
    /// Admin-1 index of place `index` (0xFFFF when unknown).
    func admin1Index(ofPlace index: Int) -> UInt16 { places.u16(index * GazetteerFormat.placeStride + 24) }
    /// Country index of admin-1 region `index`.
    func countryIndex(ofAdmin1 index: Int) -> UInt16 {
        admin1.u16(index * GazetteerFormat.admin1Stride + 24)
    }

    func admin1Place(_ index: Int) -> Place? {
        guard index >= 0, index < admin1Count else { return nil }
        let base = index * GazetteerFormat.admin1Stride
        let country = countryFields(Int(admin1.u16(base + 24)))
        return Place(
            id: Int(admin1.u32(base + 28)), name: admin1Name(index),
            coordinate: Coordinate(
                uncheckedLatitude: Double(admin1.i32(base + 32)) / GazetteerFormat.coordinateScale,
                longitude: Double(admin1.i32(base + 36)) / GazetteerFormat.coordinateScale),
            country: country.name, countryCode: country.code, timezone: timezone(Int(admin1.u16(base + 26))),
            population: Int(admin1.u32(base + 40)), featureCode: "ADM1")
    }

    func countryPlace(_ index: Int) -> Place? {
        guard index >= 0, index < countryCount else { return nil }
        let base = index * GazetteerFormat.countryStride
        let fields = countryFields(index)
        return Place(
            id: Int(countries.u32(base + 24)), name: fields.name,
            coordinate: Coordinate(
                uncheckedLatitude: Double(countries.i32(base + 32)) / GazetteerFormat.coordinateScale,
                longitude: Double(countries.i32(base + 36)) / GazetteerFormat.coordinateScale),
            country: fields.name, countryCode: fields.code, timezone: timezone(Int(countries.u16(base + 40))),
            population: Int(countries.u32(base + 28)), featureCode: "PCLI")
    }

    /// Countries a qualifier names: its ISO alpha-2 or alpha-3 code, or any of its names.
    func countries(named folded: String) -> Set<UInt16> {
        var found = Set<UInt16>()
        let upper = Array(folded.uppercased().utf8)
        if upper.count >= 2, let packed = ShortCodes.pack(upper) {
            // Alpha-2 and alpha-3 code of each country, in turn.
            let codes = shortCountryCodes.codes {
                (0..<countryCount).flatMap { index -> [UInt32] in
                    let base = index * GazetteerFormat.countryStride
                    return [
                        ShortCodes.pack(Array(countries.bytes(at: base, count: 2))) ?? 0,
                        ShortCodes.pack(Array(countries.bytes(at: base + 2, count: 3))) ?? 0,
                    ]
                }
            }
            for position in codes.indices where codes[position] == packed { found.insert(UInt16(position / 2)) }
        }
        forEachExactEntry(folded) { entry in
            if index.kind(entry) == .country { found.insert(UInt16(clamping: index.target(entry))) }
        }
        return found
    }

    /// Admin-1 regions a qualifier names: its short code ("IL", "BY") or any of its names.
    func admin1Regions(named folded: String) -> Set<UInt16> {
        var found = Set<UInt16>()
        if let packed = ShortCodes.pack(Array(folded.uppercased().utf8)) {
            let codes = shortAdmin1Codes.codes {
                (0..<admin1Count).map { index -> UInt32 in
                    let ref = index * GazetteerFormat.admin1Stride + 16
                    let offset = Int(admin1.u32(ref))
                    let length = Int(admin1.u32(ref + 4))
                    guard (1...3).contains(length), offset <= strings.count - length else { return 0 }
                    return ShortCodes.pack(Array(strings.bytes(at: offset, count: length))) ?? 0
                }
            }
            for index in codes.indices where codes[index] == packed { found.insert(UInt16(index)) }
        }
        forEachExactEntry(folded) { entry in
            if index.kind(entry) == .admin1 { found.insert(UInt16(clamping: index.target(entry))) }
        }
        return found
    }

    /// ISO alpha-2 code of the country `name` names (code, alpha-3 or any name), if one.
    public func countryCode(named name: String) -> String? {
        guard let index = countries(named: SearchKey.fold(name)).min() else { return nil }
        return countryFields(Int(index)).code
    }

    /// ISO alpha-3 code of the country with alpha-2 `code`, if known.
    public func countryISO3(code: String) -> String? {
        let upper = code.uppercased()
        for index in 0..<countryCount where countryFields(index).code == upper {
            let base = index * GazetteerFormat.countryStride
            return String(decoding: countries.bytes(at: base + 2, count: 3), as: UTF8.self)
        }
        return nil
    }

    private func forEachExactEntry(_ folded: String, _ body: (Int) -> Void) {
        let key = Array(folded.utf8)
        for entry in index.exactRange(key, in: index.prefixRange(key)) { body(entry) }
    }
}

extension Gazetteer {
    /// Every name in the index by GeoNames id (places, regions, countries; primary name
    /// first). Builds a table of all ~600,000 names in about half a second: for tools
    /// such as the acceptance report, not for each query.
    public func namesByID() -> [Int: [String]] {
        var table: [Int: [String]] = [:]
        var regionIDs: [Int: Int] = [:]
        for entry in 0..<index.count {
            let target = index.target(entry)
            let id: Int
            switch index.kind(entry) {
            case .place:
                guard target < count else { continue }
                id = Int(places.u32(target * GazetteerFormat.placeStride))
            case .admin1, .country:
                let key = Int(index.kind(entry).rawValue) << 32 | target
                if let known = regionIDs[key] {
                    id = known
                } else {
                    id = self.target(of: entry)?.id ?? 0
                    regionIDs[key] = id
                }
            }
            let name = originalName(of: entry)
            if index.isAlternate(entry) {
                table[id, default: []].append(name)
            } else {
                table[id, default: []].insert(name, at: 0)
            }
        }
        return table
    }

    /// True when some place, region or country has a name that folds to `name`'s key.
    public func containsName(_ name: String) -> Bool {
        let key = Array(SearchKey.fold(name).utf8)
        return !key.isEmpty && !index.exactRange(key, in: index.prefixRange(key)).isEmpty
    }
}

/// Short codes packed into one integer each, built on first use: admin-1 codes ("IL",
/// "BY", "M"; 3,865 of them) and country codes (alpha-2 and alpha-3, two per country).
/// A qualifier is compared against all of them, and reading each code from the mapped
/// file was a tenth of a slow search ("Sã o" tries "o" and "sa", "San F" tries "san");
/// a search per keystroke (the picker) pays for the table once. Built lazily, not at
/// load, so `airloc reverse` does not pay for it.
final class ShortCodes: Sendable {
    private let table = Lock<[UInt32]?>(nil)

    /// `bytes` as a packed code, or nil when it is not 1...3 bytes long.
    static func pack(_ bytes: [UInt8]) -> UInt32? {
        guard (1...3).contains(bytes.count) else { return nil }
        var packed = UInt32(bytes.count) << 24
        for (position, byte) in bytes.enumerated() { packed |= UInt32(byte) << (16 - 8 * UInt32(position)) }
        return packed
    }

    /// The table, made by `build` the first time.
    func codes(_ build: () -> [UInt32]) -> [UInt32] {
        table.withLock { table in
            if let table { return table }
            let built = build()
            table = built
            return built
        }
    }
}
