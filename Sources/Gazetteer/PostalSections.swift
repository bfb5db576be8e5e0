import Foundation

/// Writes the postal sections (`POST`, `PFMT`) from GeoNames postal rows and the
/// countries' formats.
///
/// Contract: codes are stored as given (upper-cased, inner spaces single), sorted by
/// country and then bytewise, so a lookup is one binary search; rows of an unknown
/// country are dropped (counted in the build output), never misfiled.
enum PostalSections {
    static func build(
        rows: [GeoNamesDump.PostalRow], countries: [GeoNamesDump.CountryRow], countryIndex: [String: UInt16],
        admin1Index: [String: UInt16], strings: inout StringTable
    ) -> (codes: [UInt8], formats: [UInt8]) {
        let keyed = rows.compactMap { row -> (UInt16, [UInt8], GeoNamesDump.PostalRow)? in
            guard let country = countryIndex[row.countryCode] else { return nil }
            return (country, Array(PostalCode.normalise(row.code).utf8), row)
        }.sorted { a, b in
            if a.0 != b.0 { return a.0 < b.0 }
            if a.1 != b.1 { return a.1.lexicographicallyPrecedes(b.1) }
            return a.2.placeName < b.2.placeName
        }
        var codes = BinaryWriter()
        var perCountry = [UInt32](repeating: 0, count: countries.count)
        for (country, code, row) in keyed {
            codes.u16(country)
            codes.u16(admin1Index[row.countryCode + "." + row.admin1Code] ?? GazetteerFormat.none16)
            codes.ref(strings.add(String(decoding: code, as: UTF8.self)))
            codes.ref(strings.add(row.placeName))
            codes.i32(Int32((row.latitude * GazetteerFormat.coordinateScale).rounded()))
            codes.i32(Int32((row.longitude * GazetteerFormat.coordinateScale).rounded()))
            codes.u32(0)
            perCountry[Int(country)] += 1
        }
        var formats = BinaryWriter()
        for (index, country) in countries.enumerated() {
            formats.ref(strings.add(country.postalCodeFormat))
            formats.ref(strings.add(country.postalCodeRegex))
            formats.u32(perCountry[index])
            formats.u32(0)
        }
        return (codes.bytes, formats.bytes)
    }
}
