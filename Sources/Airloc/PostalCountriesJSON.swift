import Foundation
import Gazetteer

/// `airloc postal --countries --json`, schema `airloc.postal-countries/1`: what each
/// country's postal codes look like and where answers for them come from.
///
/// Contract: every country with codes in the offline data or covered by Zippopotam.us,
/// by ISO code; `answered` is `offline`, `offline+online` or `online`.
public struct PostalCountriesJSON: Encodable {
    /// One country.
    public struct Row: Encodable, Sendable {
        /// ISO 3166 alpha-2.
        public var code: String
        /// The country's name.
        public var name: String
        /// Its codes' format ("#####").
        public var format: String
        /// The format in words.
        public var formatDescription: String?
        /// Codes known offline.
        public var offlineCodes: Int
        /// The lowest and highest code known ("00501-99950").
        public var range: String?
        /// Where a code of the country is answered from.
        public var answered: AnswerSource
    }

    /// The document's schema.
    public var schema = "airloc.postal-countries/1"
    /// Every country, by code.
    public var countries: [Row]

    /// The countries `gazetteer` knows.
    public init(gazetteer: Gazetteer) {
        var codes = Set(Zippopotam.countries)
        for code in gazetteer.countryCodes where (gazetteer.postalFormat(countryCode: code)?.offlineCount ?? 0) > 0 {
            codes.insert(code)
        }
        countries = codes.sorted().map { code in
            let format = gazetteer.postalFormat(countryCode: code)
            let offline = format?.offlineCount ?? 0
            let online = Zippopotam.countries.contains(code)
            return Row(
                code: code, name: gazetteer.countryName(code: code) ?? code, format: format?.format ?? "",
                formatDescription: format.flatMap { PostalCode.describe(format: $0.format) }, offlineCodes: offline,
                range: format.flatMap { f in f.first.map { "\($0)–\(f.last ?? $0)" } },
                answered: offline > 0 ? (online ? .both : .offline) : .online)
        }
    }
}
