import Foundation

/// Readers for GeoNames' tab-separated dump files (download.geonames.org/export/dump),
/// the one input format of ``GazetteerBuilder``.
///
/// Contract: a malformed row is an error naming file and line, never silently skipped,
/// because a shifted column would put places in the wrong country.
public enum GeoNamesDump {
    /// One row of cities500.txt / cities1000.txt / allCountries.txt (19 columns).
    public struct PlaceRow: Sendable, Equatable {
        /// GeoNames' id.
        public var geonameid: Int
        /// The name in its own script.
        public var name: String
        /// The name in ASCII.
        public var asciiName: String
        /// Other names (exonyms, spellings).
        public var alternateNames: [String]
        /// Degrees north.
        public var latitude: Double
        /// Degrees east.
        public var longitude: Double
        /// GeoNames' feature class ("P": a populated place).
        public var featureClass: String
        /// GeoNames' feature code ("PPLC": a capital).
        public var featureCode: String
        /// ISO 3166 alpha-2.
        public var countryCode: String
        /// The admin-1 region's code within the country.
        public var admin1Code: String
        /// Inhabitants.
        public var population: Int
        /// The IANA time zone.
        public var timezone: String
    }

    /// One row of admin1CodesASCII.txt: "DE.16<TAB>Berlin<TAB>Berlin<TAB>2950157".
    public struct Admin1Row: Sendable, Equatable {
        /// "DE.16": country and region.
        public var code: String
        /// The region's name.
        public var name: String
        /// The name in ASCII.
        public var asciiName: String
        /// GeoNames' id.
        public var geonameid: Int
    }

    /// One row of GeoNames' postal-code dump (download.geonames.org/export/zip,
    /// allCountries.txt or CC.txt): country, code, place name, admin-1 name and code,
    /// ..., latitude, longitude.
    public struct PostalRow: Sendable, Equatable {
        /// ISO 3166 alpha-2.
        public var countryCode: String
        /// The postal code.
        public var code: String
        /// The place it belongs to.
        public var placeName: String
        /// The admin-1 region's name.
        public var admin1Name: String
        /// The admin-1 region's code.
        public var admin1Code: String
        /// Nil when the source has no coordinates (the builder then derives them).
        public var latitude: Double?
        /// Degrees east, when the row gives a position.
        public var longitude: Double?
        /// What kind of code (USPS's ZIP types); nil when the source does not say.
        /// Column 13, an extension of GeoNames' layout that `geonames-from-pypi.py` writes.
        public var kind: PostalKind? = nil
        /// Other names the post accepts for the code ("Hollywood" for a Los Angeles
        /// ZIP). Column 14, `|`-separated, the same extension.
        public var acceptableNames: [String] = []
    }

    /// One row of alternateNamesV2.txt (or the older alternateNames.txt): a name of the
    /// place, region or country `geonameid` in `language` (ISO 639, or a pseudo-language
    /// such as "abbr", "link", "post", "iata").
    public struct AlternateNameRow: Sendable, Equatable {
        /// The place's GeoNames id.
        public var geonameid: Int
        /// The name's language (ISO 639, or "link", "post"...).
        public var language: String
        /// The name.
        public var name: String
        /// True for a former name.
        public var isHistoric: Bool
    }

    /// One row of countryInfo.txt (19 columns, '#' comments).
    public struct CountryRow: Sendable, Equatable {
        /// ISO 3166 alpha-2.
        public var iso2: String
        /// ISO 3166 alpha-3.
        public var iso3: String
        /// The country's name.
        public var name: String
        /// Its capital.
        public var capital: String
        /// Its population.
        public var population: Int
        /// Its postal codes' format ("#####").
        public var postalCodeFormat: String
        /// Its postal codes' pattern, as a regular expression.
        public var postalCodeRegex: String
        /// GeoNames' id of the country.
        public var geonameid: Int
    }

    /// The rows of a cities dump (cities500.txt).
    public static func places(at url: URL) throws -> [PlaceRow] {
        try rows(at: url, minimumColumns: 19) { cols, fail in
            guard let id = Int(cols[0]), let lat = Double(cols[4]), let lon = Double(cols[5]),
                (-90...90).contains(lat), (-180...180).contains(lon)
            else { throw fail("expected geonameid, latitude, longitude in columns 1, 5, 6") }
            return PlaceRow(
                geonameid: id, name: String(cols[1]), asciiName: String(cols[2]),
                alternateNames: cols[3].isEmpty ? [] : cols[3].split(separator: ",").map(String.init),
                latitude: lat, longitude: lon, featureClass: String(cols[6]), featureCode: String(cols[7]),
                countryCode: String(cols[8]), admin1Code: String(cols[10]),
                population: Int(cols[14]) ?? 0, timezone: String(cols[17]))
        }
    }

    /// The rows of admin1CodesASCII.txt.
    public static func admin1(at url: URL) throws -> [Admin1Row] {
        try rows(at: url, minimumColumns: 4) { cols, fail in
            guard cols[0].contains("."), let id = Int(cols[3]) else {
                throw fail("expected CC.code, name, ascii name, geonameid")
            }
            return Admin1Row(code: String(cols[0]), name: String(cols[1]), asciiName: String(cols[2]), geonameid: id)
        }
    }

    /// The rows of a postal codes dump.
    public static func postalCodes(at url: URL) throws -> [PostalRow] {
        try rows(at: url, minimumColumns: 11) { cols, fail in
            let lat = Double(cols[9])
            let lon = Double(cols[10])
            let bothEmpty = cols[9].isEmpty && cols[10].isEmpty
            guard cols[0].utf8.count == 2, !cols[1].isEmpty,
                bothEmpty
                    || (lat.map { (-90...90).contains($0) } == true && lon.map { (-180...180).contains($0) } == true)
            else {
                throw fail(
                    "expected country, postal code, ..., latitude, longitude (or both empty) in columns 1, 2, 10, 11")
            }
            var row = PostalRow(
                countryCode: String(cols[0]), code: String(cols[1]), placeName: String(cols[2]),
                admin1Name: String(cols[3]), admin1Code: String(cols[4]), latitude: lat, longitude: lon)
            if cols.count > 12 { row.kind = PostalKind(uspsName: String(cols[12])) }
            if cols.count > 13 {
                row.acceptableNames = cols[13].split(separator: "|").map(String.init).filter { !$0.isEmpty }
            }
            return row
        }
    }

    /// Reads alternateNamesV2.txt, keeping only rows whose geonameid passes `keep` (the
    /// full file has 18 million rows; the gazetteer needs a small part of them).
    public static func alternateNames(at url: URL, keep: (Int) -> Bool) throws -> [AlternateNameRow] {
        try rows(at: url, minimumColumns: 4) { cols, fail in
            guard let id = Int(cols[1]) else { throw fail("expected a geonameid in column 2") }
            guard keep(id) else { return nil }
            return AlternateNameRow(
                geonameid: id, language: String(cols[2]), name: String(cols[3]),
                isHistoric: cols.count > 7 && cols[7] == "1")
        }.compactMap { $0 }
    }

    /// The rows of countryInfo.txt.
    public static func countries(at url: URL) throws -> [CountryRow] {
        try rows(at: url, minimumColumns: 17) { cols, fail in
            guard cols[0].utf8.count == 2, cols[1].utf8.count == 3 else {
                throw fail("expected ISO alpha-2 and alpha-3 codes in columns 1 and 2")
            }
            return CountryRow(
                iso2: String(cols[0]), iso3: String(cols[1]), name: String(cols[4]), capital: String(cols[5]),
                population: Int(cols[7]) ?? 0, postalCodeFormat: String(cols[13]),
                postalCodeRegex: String(cols[14]), geonameid: Int(cols[16]) ?? 0)
        }
    }

    private static func rows<Row>(
        at url: URL, minimumColumns: Int,
        parse: ([Substring], (String) -> GazetteerError) throws -> Row
    ) throws -> [Row] {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw GazetteerError.unreadable(path: url.path, reason: error.localizedDescription)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw GazetteerError.badInput(file: url.path, line: 1, reason: "the file is not UTF-8")
        }
        var result: [Row] = []
        var lineNumber = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let trimmed = line.hasSuffix("\r") ? line.dropLast() : line
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let cols = trimmed.split(separator: "\t", omittingEmptySubsequences: false)
            let fail = { (reason: String) in
                GazetteerError.badInput(file: url.lastPathComponent, line: lineNumber, reason: reason)
            }
            guard cols.count >= minimumColumns else {
                throw fail("expected \(minimumColumns) tab-separated columns, found \(cols.count)")
            }
            result.append(try parse(cols, fail))
        }
        return result
    }
}
