import Foundation
import Geo
import Platform

/// Builds `gazetteer.bin` from GeoNames dump files.
///
/// Contract: the output is a pure function of the inputs plus `source` and `builtAt`
/// (same input → byte-identical file), so a rebuilt file only changes in git when the
/// data did. Places with an unknown country or admin-1 code are kept, with those fields
/// empty. The file is written to a temporary name and renamed, so a crash or power cut
/// never leaves a half-written gazetteer behind.
public struct GazetteerBuilder: Sendable {
    /// The places to write.
    public var places: [GeoNamesDump.PlaceRow]
    /// The admin-1 regions.
    public var admin1: [GeoNamesDump.Admin1Row]
    /// The countries.
    public var countries: [GeoNamesDump.CountryRow]
    /// Postal codes (GeoNames postal dump format), offline answers for `postal`.
    public var postalCodes: [GeoNamesDump.PostalRow] = []
    /// Names from alternateNamesV2.txt by geonameid (places, regions and countries).
    public var alternateNames: [Int: [GeoNamesDump.AlternateNameRow]] = [:]
    /// Where the data came from, kept in the file.
    public var source: String
    /// When it was built (SOURCE_DATE_EPOCH for a reproducible file).
    public var builtAt: Date
    /// The spatial grid's cells per degree.
    public var cellsPerDegree = GazetteerFormat.defaultCellsPerDegree
    /// Resolution of the nearest-place seeds (4 per degree: 1 million cells, computed in
    /// about a second in a release build); small test gazetteers use 1.
    public var seedCellsPerDegree = GazetteerFormat.seedCellsPerDegree

    /// A builder of these rows.
    public init(
        places: [GeoNamesDump.PlaceRow], admin1: [GeoNamesDump.Admin1Row],
        countries: [GeoNamesDump.CountryRow], source: String, builtAt: Date
    ) {
        self.places = places
        self.admin1 = admin1
        self.countries = countries
        self.source = source
        self.builtAt = builtAt
    }

    /// Reads cities*.txt, admin1CodesASCII.txt and countryInfo.txt from `directory`, and
    /// The date stamped into a built file: `SOURCE_DATE_EPOCH` when set (the
    /// reproducible-builds convention: the same inputs give the same bytes on any day),
    /// else today.
    public static func buildDate(environment: [String: String]) -> Date {
        guard let text = environment["SOURCE_DATE_EPOCH"], let seconds = Int(text), seconds >= 0 else { return Date() }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// alternateNamesV2.txt (or alternateNames.txt) when present.
    public static func fromDumps(in directory: URL, source: String, builtAt: Date) throws -> GazetteerBuilder {
        let fm = FileManager.default
        let candidates = ["cities500.txt", "cities1000.txt", "cities5000.txt", "cities15000.txt", "allCountries.txt"]
        guard
            let citiesName = candidates.first(where: {
                fm.fileExists(atPath: directory.appendingPathComponent($0).path)
            })
        else {
            throw GazetteerError.unreadable(
                path: directory.path, reason: "no cities500.txt (or cities1000/5000/15000.txt) in it")
        }
        var builder = GazetteerBuilder(
            places: try GeoNamesDump.places(at: directory.appendingPathComponent(citiesName))
                .filter { $0.featureClass == "P" || $0.featureClass.isEmpty },
            admin1: try GeoNamesDump.admin1(at: directory.appendingPathComponent("admin1CodesASCII.txt")),
            countries: try GeoNamesDump.countries(at: directory.appendingPathComponent("countryInfo.txt")),
            source: source, builtAt: builtAt)
        if let postalName = ["postalCodes.txt", "allCountriesPostal.txt"].first(where: {
            fm.fileExists(atPath: directory.appendingPathComponent($0).path)
        }) {
            builder.postalCodes = try GeoNamesDump.postalCodes(at: directory.appendingPathComponent(postalName))
        }
        if let alternatesName = ["alternateNamesV2.txt", "alternateNames.txt"].first(where: {
            fm.fileExists(atPath: directory.appendingPathComponent($0).path)
        }) {
            let wanted = Set(
                builder.places.map(\.geonameid) + builder.admin1.map(\.geonameid)
                    + builder.countries.map(\.geonameid))
            let rows = try GeoNamesDump.alternateNames(
                at: directory.appendingPathComponent(alternatesName), keep: wanted.contains)
            builder.alternateNames = Dictionary(grouping: rows, by: \.geonameid)
        }
        return builder
    }

    /// Serialises the gazetteer.
    public func build() -> [UInt8] {
        var strings = StringTable()
        let countryRows = countries.sorted { $0.iso2 < $1.iso2 }
        let countryIndex = Dictionary(
            countryRows.enumerated().map { ($1.iso2, UInt16($0)) }, uniquingKeysWith: { first, _ in first })
        let admin1Rows = admin1.sorted { $0.code < $1.code }
        let admin1Index = Dictionary(
            admin1Rows.enumerated().map { ($1.code, UInt16($0)) }, uniquingKeysWith: { first, _ in first })
        let timezones = Array(Set(places.map(\.timezone))).sorted()
        let timezoneIndex = Dictionary(uniqueKeysWithValues: timezones.enumerated().map { ($1, UInt16($0)) })
        let features = Array(Set(places.map(\.featureCode))).sorted()
        let featureIndex = Dictionary(uniqueKeysWithValues: features.enumerated().map { ($1, UInt8($0)) })

        // Regions and countries are summarised from their places: centre and time zone.
        var countrySummaries = [RegionSummary](repeating: RegionSummary(), count: countryRows.count)
        var admin1Summaries = [RegionSummary](repeating: RegionSummary(), count: admin1Rows.count)
        for row in places {
            if let c = countryIndex[row.countryCode] {
                countrySummaries[Int(c)].add(
                    latitude: row.latitude, longitude: row.longitude, population: row.population,
                    timezone: row.timezone)
            }
            if let a = admin1Index[row.countryCode + "." + row.admin1Code] {
                admin1Summaries[Int(a)].add(
                    latitude: row.latitude, longitude: row.longitude, population: row.population,
                    timezone: row.timezone)
            }
        }
        func scaled(_ degrees: Double) -> Int32 { Int32((degrees * GazetteerFormat.coordinateScale).rounded()) }

        var countrySection = BinaryWriter()
        for (index, row) in countryRows.enumerated() {
            let summary = countrySummaries[index]
            countrySection.raw(Array(row.iso2.utf8.prefix(2)))
            countrySection.raw(Array((row.iso3 + "   ").utf8.prefix(3)))
            countrySection.raw([0, 0, 0])
            countrySection.ref(strings.add(row.name))
            countrySection.ref(strings.add(row.capital))
            countrySection.u32(UInt32(clamping: row.geonameid))
            countrySection.u32(UInt32(clamping: row.population > 0 ? row.population : summary.population))
            countrySection.i32(scaled(summary.centre.latitude))
            countrySection.i32(scaled(summary.centre.longitude))
            countrySection.u16(timezoneIndex[summary.timezone] ?? GazetteerFormat.none16)
            countrySection.u16(0)
            countrySection.u32(0)
        }
        var admin1Section = BinaryWriter()
        for (index, row) in admin1Rows.enumerated() {
            let summary = admin1Summaries[index]
            admin1Section.ref(strings.add(row.code))
            admin1Section.ref(strings.add(row.name))
            admin1Section.ref(strings.add(abbreviation(of: row)))
            let cc = String(row.code.prefix { $0 != "." })
            admin1Section.u16(countryIndex[cc] ?? GazetteerFormat.none16)
            admin1Section.u16(timezoneIndex[summary.timezone] ?? GazetteerFormat.none16)
            admin1Section.u32(UInt32(clamping: row.geonameid))
            admin1Section.i32(scaled(summary.centre.latitude))
            admin1Section.i32(scaled(summary.centre.longitude))
            admin1Section.u32(UInt32(clamping: summary.population))
            admin1Section.u32(0)
        }
        var timezoneSection = BinaryWriter()
        for zone in timezones { timezoneSection.ref(strings.add(zone)) }
        var featureSection = BinaryWriter()
        for code in features { featureSection.ref(strings.add(code)) }

        // Order places by grid cell, then by population (descending) and id, so a cell is
        // one contiguous run and the biggest places of a cell come first.
        let cellsPerDegree = self.cellsPerDegree
        func cell(_ row: GeoNamesDump.PlaceRow) -> Int {
            GridGeometry.cell(latitude: row.latitude, longitude: row.longitude, cellsPerDegree: cellsPerDegree)
        }
        let ordered = places.map { (cell($0), $0) }.sorted { a, b in
            if a.0 != b.0 { return a.0 < b.0 }
            if a.1.population != b.1.population { return a.1.population > b.1.population }
            return a.1.geonameid < b.1.geonameid
        }
        var placeSection = BinaryWriter()
        var treeVectors: [(Float, Float, Float)] = []
        treeVectors.reserveCapacity(ordered.count)
        for (_, row) in ordered {
            let lat = (row.latitude * GazetteerFormat.coordinateScale).rounded()
            let lon = (row.longitude * GazetteerFormat.coordinateScale).rounded()
            placeSection.u32(UInt32(clamping: row.geonameid))
            placeSection.i32(Int32(lat))
            placeSection.i32(Int32(lon))
            placeSection.u32(UInt32(clamping: row.population))
            placeSection.ref(strings.add(row.name))
            placeSection.u16(admin1Index[row.countryCode + "." + row.admin1Code] ?? GazetteerFormat.none16)
            placeSection.u16(countryIndex[row.countryCode] ?? GazetteerFormat.none16)
            placeSection.u16(timezoneIndex[row.timezone] ?? GazetteerFormat.none16)
            placeSection.u8(featureIndex[row.featureCode] ?? 0)
            placeSection.u8(0)
            // Vectors from the stored (rounded) coordinate, so distances agree with what
            // the reader reports.
            let v = unitVector(
                latitude: lat / GazetteerFormat.coordinateScale, longitude: lon / GazetteerFormat.coordinateScale)
            treeVectors.append((Float(v.0), Float(v.1), Float(v.2)))
        }
        let treeSection = PlaceTree.build(vectors: treeVectors, populations: ordered.map(\.1.population))
        let seedSection = PlaceTree.seeds(treeBytes: treeSection, cellsPerDegree: seedCellsPerDegree)

        // Search names. Regions and countries without a single place have no centre to
        // offer, so they are not search results.
        var search = SearchIndexBuilder()
        for (index, (_, row)) in ordered.enumerated() {
            search.add(
                target: index, kind: .place,
                population: row.population,
                placeFlags: SearchTargetKind.placeFlags(
                    featureCode: row.featureCode, alternateNames: row.alternateNames.count),
                primary: row.name, alternates: [row.asciiName] + row.alternateNames + names(of: row.geonameid),
                strings: &strings)
        }
        for (index, row) in admin1Rows.enumerated() where admin1Summaries[index].places > 0 {
            search.add(
                target: index, kind: .admin1,
                population: admin1Summaries[index].population,
                primary: row.name, alternates: [row.asciiName] + names(of: row.geonameid), strings: &strings)
        }
        for (index, row) in countryRows.enumerated() where countrySummaries[index].places > 0 {
            search.add(
                target: index, kind: .country,
                population: row.population > 0 ? row.population : countrySummaries[index].population,
                primary: row.name, alternates: names(of: row.geonameid), codes: [row.iso3], strings: &strings)
        }
        let searchSections = search.build()
        // Postal rows name their region by GeoNames code ("US.CA") or by ISO short code
        // ("DE.SN"); both find the admin-1 record.
        var postalAdmin1 = admin1Index
        for (index, row) in admin1Rows.enumerated() {
            let abbreviation = abbreviation(of: row)
            let cc = String(row.code.prefix { $0 != "." })
            if !abbreviation.isEmpty, postalAdmin1[cc + "." + abbreviation] == nil {
                postalAdmin1[cc + "." + abbreviation] = UInt16(index)
            }
        }
        let postalSections = PostalSections.build(
            rows: postalCodes, countries: countryRows, countryIndex: countryIndex, admin1Index: postalAdmin1,
            places: places, strings: &strings)

        var idSection = BinaryWriter()
        for (index, entry) in ordered.enumerated().sorted(by: { $0.1.1.geonameid < $1.1.1.geonameid }) {
            idSection.u32(UInt32(clamping: entry.1.geonameid))
            idSection.u32(UInt32(index))
        }

        let meta = [
            "source=\(source)", "built=\(UTCTime(builtAt).text(.day))", "places=\(places.count)",
            "countries=\(countryRows.count)", "admin1=\(admin1Rows.count)",
            "names=\(search.entries.count)", "postal_codes=\(postalCodes.count - postalSections.dropped)",
            "attribution=GeoNames (geonames.org), CC BY 4.0",
        ].joined(separator: "\n")

        let sections: [(GazetteerFormat.Tag, [UInt8])] = [
            (.meta, Array(meta.utf8)), (.strings, strings.blob), (.countries, countrySection.bytes),
            (.admin1, admin1Section.bytes), (.timezones, timezoneSection.bytes), (.features, featureSection.bytes),
            (.places, placeSection.bytes), (.tree, treeSection), (.seeds, seedSection),
            (.idIndex, idSection.bytes), (.keys, searchSections.keys), (.searchEntries, searchSections.entries),
            (.hotPrefixes, searchSections.hot), (.hotTops, searchSections.tops), (.keyTrie, searchSections.trie),
            (.postalCodes, postalSections.codes), (.postalFormats, postalSections.formats),
        ]
        var out = BinaryWriter()
        out.raw(GazetteerFormat.magic)
        out.u32(GazetteerFormat.version)
        out.u32(UInt32(sections.count))
        var offset = GazetteerFormat.headerSize + sections.count * GazetteerFormat.sectionEntrySize
        for (tag, body) in sections {
            offset = (offset + 7) & ~7
            out.u32(tag.code)
            out.u32(0)
            out.u64(UInt64(offset))
            out.u64(UInt64(body.count))
            offset += body.count
        }
        for (_, body) in sections {
            out.pad(to: 8)
            out.raw(body)
        }
        return out.bytes
    }

    /// Alternate names a person types for `geonameid` (no codes, links or postal codes).
    private func names(of geonameid: Int) -> [String] {
        (alternateNames[geonameid] ?? []).filter { !SearchIndexBuilder.nonNameLanguages.contains($0.language) }
            .map(\.name)
    }

    /// A region's short code for "Springfield, IL": the ISO 3166-2 code GeoNames lists
    /// as "abbr", else a GeoNames admin-1 code made of letters (US states: "US.IL").
    private func abbreviation(of row: GeoNamesDump.Admin1Row) -> String {
        if let abbr = alternateNames[row.geonameid]?.first(where: { $0.language == "abbr" }) { return abbr.name }
        let code = row.code.split(separator: ".").last.map(String.init) ?? ""
        return code.allSatisfy(\.isLetter) ? code : ""
    }

    /// Builds and writes atomically: a temporary file in the same folder, flushed to
    /// disk, then renamed over the target (rename(2) replaces in one step), so a crash
    /// or power cut leaves either the old file or the new one, never a mix or neither.
    public func write(to url: URL) throws {
        do { try AtomicFile.write(build(), to: url, mode: 0o644) } catch {
            throw GazetteerError.unreadable(path: url.path, reason: "cannot write: \(error.reason)")
        }
    }
}
