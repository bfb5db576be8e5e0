import Foundation

extension Gazetteer {
    /// Checks every reference in the file: each string reference lies in the string blob,
    /// each index points at a record that exists (places, regions, countries, time zones,
    /// features, search entries, tree slots, seeds, postal records), the id index is sorted
    /// and agrees with the places. `airloc data info --verify` runs it; lookups check the
    /// same references as they read them, so a damaged file is reported, never a crash.
    ///
    /// Returns what is wrong, one line a problem (at most a few per section); empty when
    /// the file is sound. Takes a few hundred milliseconds: every record is read.
    public func verify() -> [String] {
        var problems: [String] = []
        func check(_ section: String, _ records: Int, _ problem: (Int) -> String?) {
            var found = 0
            for record in 0..<records {
                guard let text = problem(record) else { continue }
                found += 1
                if found <= 3 { problems.append("\(section) record \(record): \(text)") }
            }
            if found > 3 { problems.append("\(section): \(found - 3) more damaged records") }
        }
        /// `length` bytes at `offset` of a blob `limit` bytes long.
        func rangeProblem(_ offset: Int, _ length: Int, _ limit: Int, _ what: String) -> String? {
            offset <= limit && length <= limit - offset ? nil : what
        }
        func stringProblem(_ reader: SectionReader, _ offset: Int) -> String? {
            rangeProblem(
                Int(reader.u32(offset)), Int(reader.u32(offset + 4)), strings.count, "a string outside the text")
        }
        func indexProblem(_ value: Int, _ limit: Int, _ what: String, optional: Bool = false) -> String? {
            if optional && value == Int(GazetteerFormat.none16) { return nil }
            return value < limit ? nil : "\(what) \(value) of \(limit)"
        }
        let countryCount = countries.count / GazetteerFormat.countryStride
        let admin1Count = admin1.count / GazetteerFormat.admin1Stride
        let timezoneCount = timezones.count / GazetteerFormat.refStride
        let featureCount = features.count / GazetteerFormat.refStride

        check("CTRY", countryCount) { i in
            let base = i * GazetteerFormat.countryStride
            return stringProblem(countries, base + 8) ?? stringProblem(countries, base + 16)
                ?? indexProblem(Int(countries.u16(base + 40)), timezoneCount, "time zone", optional: true)
        }
        check("ADM1", admin1Count) { i in
            let base = i * GazetteerFormat.admin1Stride
            return stringProblem(admin1, base) ?? stringProblem(admin1, base + 8) ?? stringProblem(admin1, base + 16)
                ?? indexProblem(Int(admin1.u16(base + 24)), countryCount, "country", optional: true)
                ?? indexProblem(Int(admin1.u16(base + 26)), timezoneCount, "time zone", optional: true)
        }
        check("TZNS", timezoneCount) { stringProblem(timezones, $0 * GazetteerFormat.refStride) }
        check("FEAT", featureCount) { stringProblem(features, $0 * GazetteerFormat.refStride) }
        check("PLAC", count) { i in
            let base = i * GazetteerFormat.placeStride
            let latitude = Double(places.i32(base + 4)) / GazetteerFormat.coordinateScale
            let longitude = Double(places.i32(base + 8)) / GazetteerFormat.coordinateScale
            guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
                return "a position off the globe"
            }
            return stringProblem(places, base + 16)
                ?? indexProblem(Int(places.u16(base + 24)), admin1Count, "region", optional: true)
                ?? indexProblem(Int(places.u16(base + 26)), countryCount, "country", optional: true)
                ?? indexProblem(Int(places.u16(base + 28)), timezoneCount, "time zone", optional: true)
                ?? indexProblem(Int(places.u8(base + 30)), featureCount, "feature")
        }
        check("IDIX", count) { i in
            let base = i * GazetteerFormat.idStride
            let id = ids.u32(base)
            let target = Int(ids.u32(base + 4))
            if i > 0 && ids.u32(base - GazetteerFormat.idStride) >= id { return "ids out of order" }
            guard target < count else { return "place \(target) of \(count)" }
            return places.u32(target * GazetteerFormat.placeStride) == id ? nil : "points at another place"
        }
        check("KDTR", tree.count) { slot in indexProblem(tree.place(atSlot: slot), count, "place") }
        check("SEED", seeds.count / 4) { cell in
            indexProblem(Int(seeds.u32(cell * 4) & 0x7FFF_FFFF), tree.count, "tree slot")
        }
        let entryCount = index.count
        check("SIDX", entryCount) { i in
            let base = i * GazetteerFormat.entryStride
            let key = (Int(index.entries.u32(base)), Int(index.entries.u8(base + 12)))
            let name = (Int(index.entries.u32(base + 8)), Int(index.entries.u8(base + 13)))
            if let problem = rangeProblem(key.0, key.1, index.keys.count, "a key outside the key blob")
                ?? rangeProblem(name.0, name.1, strings.count, "a name outside the text")
            {
                return problem
            }
            let target = Int(index.entries.u32(base + 4))
            let kindByte = index.kindByte(i)
            if kindByte & 0x20 != 0 || kindByte & SearchTargetKind.seatMask == SearchTargetKind.seatMask {
                return "an unknown kind of name"
            }
            switch kindByte & 0x03 {
            case 0: return indexProblem(target, count, "place")
            case 1: return indexProblem(target, admin1Count, "region")
            case 2: return indexProblem(target, countryCount, "country")
            default: return "an unknown target kind"
            }
        }
        let topCount = index.tops.count / 4
        check("SHOT", index.hot.count / GazetteerFormat.hotStride) { i in
            let base = i * GazetteerFormat.hotStride
            return rangeProblem(
                Int(index.hot.u32(base)), Int(index.hot.u32(base + 4)), index.keys.count, "a prefix outside the keys")
                ?? rangeProblem(
                    Int(index.hot.u32(base + 8)), Int(index.hot.u32(base + 12)), topCount,
                    "a best-entries list outside its section")
        }
        // Each hot prefix's records: per class a header (class, count), then entries.
        check("STOP", index.hot.count / GazetteerFormat.hotStride) { i in
            let first = Int(index.hot.u32(i * GazetteerFormat.hotStride + 8))
            let end = first + Int(index.hot.u32(i * GazetteerFormat.hotStride + 12))
            guard end <= topCount else { return nil }  // reported under SHOT
            var position = first
            while position < end {
                let header = index.tops.u32(position * 4)
                let groupEnd = position + 1 + Int(header >> 8)
                guard groupEnd <= end else { return "a class list longer than its prefix's" }
                for record in (position + 1)..<groupEnd {
                    if let problem = indexProblem(
                        Int(index.tops.u32(record * 4) & 0xFF_FFFF), entryCount, "search entry")
                    {
                        return problem
                    }
                }
                position = groupEnd
            }
            return nil
        }
        problems += index.trie?.problems() ?? []
        check("POST", postal.count / GazetteerFormat.postalStride) { i in
            let base = i * GazetteerFormat.postalStride
            return indexProblem(Int(postal.u16(base)), countryCount, "country")
                ?? indexProblem(Int(postal.u16(base + 2)), admin1Count, "region", optional: true)
                ?? stringProblem(postal, base + 4) ?? stringProblem(postal, base + 12)
        }
        check("PFMT", postalFormats.count / GazetteerFormat.postalFormatStride) { i in
            let base = i * GazetteerFormat.postalFormatStride
            return stringProblem(postalFormats, base) ?? stringProblem(postalFormats, base + 8)
        }
        return problems
    }
}
