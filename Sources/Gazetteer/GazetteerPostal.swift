import Foundation
import Geo

/// A place a postal code belongs to.
public struct PostalPlace: Sendable, Hashable {
    /// ISO 3166 alpha-2 ("US").
    public var countryCode: String
    /// The code as written in the country ("90210").
    public var code: String
    /// The place it belongs to ("Beverly Hills").
    public var placeName: String
    /// Admin-1 name ("California") and short code ("CA"); "" when unknown.
    public var admin1: String
    /// The admin-1 region's code ("CA").
    public var admin1Code: String
    /// Where the place is.
    public var coordinate: Coordinate
    /// The built-in data or Zippopotam.us (or both, once merged).
    public var source: AnswerSource
    /// True when the data had no coordinates and they are those of the most populous
    /// place of that name in the country.
    public var coordinateDerived = false
    /// What the code addresses, where the data says (US ZIP codes); nil elsewhere.
    public var kind: PostalKind? = nil
    /// Other names the post accepts for this code ("Hollywood" for 90028, Los Angeles).
    public var acceptableNames: [String] = []

    /// A postal place.
    public init(
        countryCode: String, code: String, placeName: String, admin1: String, admin1Code: String,
        coordinate: Coordinate, source: AnswerSource
    ) {
        self.countryCode = countryCode
        self.code = code
        self.placeName = placeName
        self.admin1 = admin1
        self.admin1Code = admin1Code
        self.coordinate = coordinate
        self.source = source
    }
}

/// What the data knows about one country's postal codes.
public struct PostalFormat: Sendable, Hashable {
    /// GeoNames format ("#####", "#####|#####-####"); "" when unknown.
    public var format: String
    /// GeoNames regex; "" when unknown.
    public var regex: String
    /// Codes answered offline, and the lowest and highest of them.
    public var offlineCount: Int
    /// The lowest code the gazetteer holds for the country.
    public var first: String?
    /// The highest.
    public var last: String?
}

/// Offline postal-code lookup.
///
/// Contract: `code` must already be normalised (``PostalCode/normalise(_:)``); every
/// place stored under exactly that code comes back, in the data's order (by place
/// name); a binary search, no allocation but the results.
extension Gazetteer {
    private var postalCount: Int { postal.count / GazetteerFormat.postalStride }

    /// The places for `code` in the country with ISO alpha-2 `countryCode`.
    public func postalPlaces(countryCode: String, code: String) -> [PostalPlace] {
        postalPlaces(countryCode: countryCode, key: Array(code.utf8), prefix: false, limit: Int.max)
    }

    /// The places whose code starts with `prefix` ("GY1 " → GY1 1AA, ...), at most
    /// `limit` of them, in code order.
    public func postalPlaces(countryCode: String, prefix: String, limit: Int = 50) -> [PostalPlace] {
        postalPlaces(countryCode: countryCode, key: Array(prefix.utf8), prefix: true, limit: limit)
    }

    private func postalPlaces(countryCode: String, key: [UInt8], prefix: Bool, limit: Int) -> [PostalPlace] {
        guard let country = countryIndex(iso2: countryCode) else { return [] }
        var low = 0
        var high = postalCount
        while low < high {
            let mid = (low + high) / 2
            if comparePostal(mid, country: country, key) < 0 { low = mid + 1 } else { high = mid }
        }
        var found: [PostalPlace] = []
        var index = low
        while index < postalCount, found.count < limit,
            let code = postalCode(index, country: country), prefix ? code.starts(with: key) : code.elementsEqual(key)
        {
            let base = index * GazetteerFormat.postalStride
            let admin = Int(postal.u16(base + 2))
            let adminBase = admin * GazetteerFormat.admin1Stride
            let hasAdmin = admin < admin1Count
            var place = PostalPlace(
                countryCode: countryCode.uppercased(), code: String(decoding: code, as: UTF8.self),
                placeName: string(postal, at: base + 12),
                admin1: hasAdmin ? string(admin1, at: adminBase + 8) : "",
                admin1Code: hasAdmin ? string(admin1, at: adminBase + 16) : "",
                coordinate: Coordinate(
                    uncheckedLatitude: Double(postal.i32(base + 20)) / GazetteerFormat.coordinateScale,
                    longitude: Double(postal.i32(base + 24)) / GazetteerFormat.coordinateScale),
                source: .offline)
            let flags = postal.u32(base + 28)
            index += 1
            if flags & PostalSections.aliasFlag != 0 {
                // A name the post also accepts for the record before.
                if let last = found.indices.last, found[last].code == place.code {
                    found[last].acceptableNames.append(place.placeName)
                }
                continue
            }
            place.coordinateDerived = flags & 1 != 0
            place.kind = PostalKind(code: (flags >> 8) & 0xF)
            found.append(place)
        }
        return found
    }

    /// The postal format of the country with ISO alpha-2 `countryCode`, if known.
    public func postalFormat(countryCode: String) -> PostalFormat? {
        guard let country = countryIndex(iso2: countryCode) else { return nil }
        let base = Int(country) * GazetteerFormat.postalFormatStride
        guard base + GazetteerFormat.postalFormatStride <= postalFormats.count else { return nil }
        let count = Int(postalFormats.u32(base + 16))
        // Files before alias records kept 0 in the spare word: then every record is a code.
        let codes = Int(postalFormats.u32(base + 20))
        var first: String?
        var last: String?
        if count > 0 {
            // The country's codes are one sorted run: find its start.
            var low = 0
            var high = postalCount
            while low < high {
                let mid = (low + high) / 2
                if postal.u16(mid * GazetteerFormat.postalStride) < country { low = mid + 1 } else { high = mid }
            }
            first = string(postal, at: low * GazetteerFormat.postalStride + 4)
            last = string(postal, at: (low + count - 1) * GazetteerFormat.postalStride + 4)
        }
        return PostalFormat(
            format: string(postalFormats, at: base), regex: string(postalFormats, at: base + 8),
            offlineCount: codes > 0 ? codes : count,
            first: first, last: last)
    }

    /// Every country's ISO alpha-2 code, in the data's order.
    public var countryCodes: [String] { (0..<countryCount).map { countryFields($0).code } }

    private func countryIndex(iso2: String) -> UInt16? {
        let upper = Array(iso2.uppercased().utf8)
        guard upper.count == 2 else { return nil }
        // index < countryCount: both bytes lie inside `countries` (its size is a whole
        // number of records, checked at load).
        for index in 0..<countryCount {
            let base = index * GazetteerFormat.countryStride
            if countries.uncheckedU8(base) == upper[0] && countries.uncheckedU8(base + 1) == upper[1] {
                return UInt16(index)
            }
        }
        return nil
    }

    /// Orders postal entry `index` against (country, key).
    private func comparePostal(_ index: Int, country: UInt16, _ key: [UInt8]) -> Int {
        let base = index * GazetteerFormat.postalStride
        let entryCountry = postal.uncheckedU16(base)
        if entryCountry != country { return entryCountry < country ? -1 : 1 }
        guard let code = postalCode(index, country: country) else { return -1 }
        if code.elementsEqual(key) { return 0 }
        return code.lexicographicallyPrecedes(key) ? -1 : 1
    }

    /// The code of postal entry `index` when it belongs to `country` (nil otherwise, or
    /// when its reference is damaged).
    /// `index` < postalCount, so the record's fields lie inside `postal` (a whole number
    /// of records, checked at load); the code's reference comes from the file and is checked.
    private func postalCode(_ index: Int, country: UInt16) -> UnsafeRawBufferPointer? {
        let base = index * GazetteerFormat.postalStride
        guard postal.uncheckedU16(base) == country else { return nil }
        let offset = Int(postal.uncheckedU32(base + 4))
        let length = Int(postal.uncheckedU32(base + 8))
        guard offset <= strings.count, length <= strings.count - offset else {
            postal.damage.note()
            return nil
        }
        return strings.uncheckedBytes(at: offset, count: length)
    }
}
