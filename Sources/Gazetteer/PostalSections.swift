import Foundation

/// Writes the postal sections (`POST`, `PFMT`) from GeoNames postal rows and the
/// countries' formats.
///
/// Contract: codes are stored as given (upper-cased, inner spaces single), sorted by
/// country and then bytewise, so a lookup is one binary search; rows of an unknown
/// country are dropped, never misfiled. A row without coordinates is placed at the most
/// populous place of its name in its country and marked derived (flag bit 0); one whose
/// name no place has is dropped. `dropped` says how many rows were left out.
///
/// Flags: bit 0 derived coordinates; bits 8-11 the ``PostalKind`` (0: not known); bit 1
/// marks an alias record, one per name the post also accepts for the code, written
/// right after its code's record with the same fields but the name (readers fold it
/// into that record's `acceptableNames`). A country's format record holds its number
/// of records (aliases included: the run's length) and, in the spare word, its number of
/// codes.
enum PostalSections {
    static let aliasFlag: UInt32 = 2
    static func build(
        rows: [GeoNamesDump.PostalRow], countries: [GeoNamesDump.CountryRow], countryIndex: [String: UInt16],
        admin1Index: [String: UInt16], places: [GeoNamesDump.PlaceRow], strings: inout StringTable
    ) -> (codes: [UInt8], formats: [UInt8], dropped: Int) {
        // For rows without coordinates: the most populous place of each folded name.
        var towns: [String: GeoNamesDump.PlaceRow] = [:]
        if rows.contains(where: { $0.latitude == nil }) {
            for place in places {
                let key = place.countryCode + "|" + SearchKey.fold(place.name)
                if let known = towns[key], known.population >= place.population { continue }
                towns[key] = place
            }
        }
        var dropped = 0
        let keyed = rows.compactMap { source -> (UInt16, [UInt8], GeoNamesDump.PostalRow, Bool)? in
            guard let country = countryIndex[source.countryCode] else {
                dropped += 1
                return nil
            }
            var row = source
            var derived = false
            if row.latitude == nil || row.longitude == nil {
                guard let town = towns[row.countryCode + "|" + SearchKey.fold(row.placeName)] else {
                    dropped += 1
                    return nil
                }
                row.latitude = town.latitude
                row.longitude = town.longitude
                derived = true
                // Sources that write names in capitals ("BOURG EN BRESSE") get the
                // town's own spelling ("Bourg-en-Bresse").
                if row.placeName == row.placeName.uppercased() { row.placeName = town.name }
            }
            return (country, Array(PostalCode.normalise(row.code).utf8), row, derived)
        }.sorted { a, b in
            if a.0 != b.0 { return a.0 < b.0 }
            if a.1 != b.1 { return a.1.lexicographicallyPrecedes(b.1) }
            return a.2.placeName < b.2.placeName
        }
        var codes = BinaryWriter()
        var perCountry = [UInt32](repeating: 0, count: countries.count)
        var codesPerCountry = [UInt32](repeating: 0, count: countries.count)
        for (country, code, row, derived) in keyed {
            let flags: UInt32 = (derived ? 1 : 0) | (row.kind?.code ?? 0) << 8
            let codeRef = strings.add(String(decoding: code, as: UTF8.self))
            let admin1 = admin1Index[row.countryCode + "." + row.admin1Code] ?? GazetteerFormat.none16
            let latitude = Int32(((row.latitude ?? 0) * GazetteerFormat.coordinateScale).rounded())
            let longitude = Int32(((row.longitude ?? 0) * GazetteerFormat.coordinateScale).rounded())
            let aliases = row.acceptableNames.filter { $0 != row.placeName }
            for (index, name) in ([row.placeName] + aliases).enumerated() {
                codes.u16(country)
                codes.u16(admin1)
                codes.ref(codeRef)
                codes.ref(strings.add(name))
                codes.i32(latitude)
                codes.i32(longitude)
                codes.u32(flags | (index > 0 ? PostalSections.aliasFlag : 0))
                perCountry[Int(country)] += 1
            }
            codesPerCountry[Int(country)] += 1
        }
        var formats = BinaryWriter()
        for (index, country) in countries.enumerated() {
            formats.ref(strings.add(country.postalCodeFormat))
            formats.ref(strings.add(country.postalCodeRegex))
            formats.u32(perCountry[index])
            formats.u32(codesPerCountry[index])
        }
        return (codes.bytes, formats.bytes, dropped)
    }
}
