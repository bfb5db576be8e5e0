import Foundation
import Gazetteer
import Geo

/// One query of an external geocoding acceptance suite (geocoder-tester CSV or pelias
/// JSON) and what counts as answering it.
///
/// Contract: a result is a hit when one of its names — its own, the one that matched,
/// or any alternate name the data holds for it — folds (``SearchKey``) to the expected
/// name, it lies within the tolerance
/// of the expected coordinate (at least 25 km; a suite's own, larger tolerance for
/// countries is kept), its country matches when the case names one, and it ranks at or
/// above `rank`. Cases about streets, addresses and venues are kept but marked out of
/// scope, so a report shows them without counting them.
public struct AcceptanceCase: Sendable {
    /// The suite it comes from.
    public var suite: String
    /// What is searched for.
    public var query: String
    /// The name the right answer has.
    public var expectedName: String
    /// Where the right answer is, when the suite says.
    public var expectedCoordinate: Coordinate?
    /// How far from it an answer may be, metres.
    public var toleranceMetres: Double
    /// ISO alpha-3 of the expected country, when the case checks it.
    public var expectedCountryISO3: String?
    /// pelias' `dependency`: a territory Who's On First files under its sovereign
    /// ("New Caledonia", country "France") while ISO 3166, and GeoNames, give it a code
    /// of its own (NC). A result in a country of this name matches too.
    public var expectedDependency: String? = nil
    /// The search's options (a country, a point to rank by).
    public var options: SearchOptions
    /// The expected hit must be at this rank or better (pelias' priorityThresh).
    public var rank: Int
    /// Why the case is not about places ("street", "address", "venue"), or nil.
    public var outOfScope: String?

    /// Minimum coordinate tolerance: a GeoNames point for a city may be some km from
    /// OpenStreetMap's.
    public static let minimumTolerance = 25_000.0
}

/// The outcome of one case.
public struct AcceptanceOutcome: Sendable {
    /// The case.
    public var testCase: AcceptanceCase
    /// 1-based rank of the first hit within the search results; nil = missed.
    public var hitRank: Int?
    /// False when no place, region or country in the data has the expected name: the
    /// miss is the data's (population cut, neighbourhoods, streets), not the ranking's.
    public var nameInData: Bool
    /// What came first instead ("Name, Admin1, Country (12 km off)").
    public var first: String?

    /// True when the right answer came at the rank asked or better.
    public var passed: Bool { hitRank.map { $0 <= testCase.rank } ?? false }
}

extension AcceptanceCase {
    /// Runs the case against `gazetteer` through the public search API.
    public func run(on gazetteer: Gazetteer, names: [Int: [String]]) -> AcceptanceOutcome {
        var searchOptions = options
        searchOptions.limit = max(options.limit, rank, 10)
        let results = gazetteer.search(query, options: searchOptions)
        let expected = SearchKey.fold(expectedName)
        var hit: Int?
        for (position, result) in results.enumerated() {
            let candidates = [result.place.name, result.matchedName] + (names[result.place.id] ?? [])
            guard candidates.contains(where: { SearchKey.fold($0) == expected }) else { continue }
            if let expectedCoordinate,
                result.place.coordinate.distance(to: expectedCoordinate) > max(toleranceMetres, Self.minimumTolerance)
            {
                continue
            }
            if let iso3 = expectedCountryISO3, gazetteer.countryISO3(code: result.place.countryCode) != iso3,
                expectedDependency.map({ SearchKey.fold($0) == SearchKey.fold(result.place.country) }) != true
            {
                continue
            }
            hit = position + 1
            break
        }
        let first = results.first.map { result -> String in
            var text = result.place.displayName
            if SearchKey.fold(result.matchedName) != SearchKey.fold(result.place.name) {
                text += " “\(result.matchedName)”"
            }
            if let expectedCoordinate {
                text += " (\(Int((result.place.coordinate.distance(to: expectedCoordinate) / 1000).rounded())) km off)"
            }
            return text
        }
        return AcceptanceOutcome(
            testCase: self, hitRank: hit, nameInData: gazetteer.containsName(expectedName), first: first)
    }
}

/// Words that make an expected name a street or a venue rather than a place.
enum StreetWords {
    /// German compounds end in these ("Georgenstraße", "Hafengasse").
    static let compoundEndings = ["strasse", "gasse", "allee"]
    /// A last word that names a street or venue ("Bautzener Platz", "Berliner Bär").
    static let lastWords: Set<String> = ["str", "platz", "weg", "bar", "bahnhof", "street", "avenue", "road", "allee"]

    static func isStreetOrVenue(_ name: String) -> Bool {
        let folded = SearchKey.fold(name)
        if folded.contains(where: \.isNumber) { return true }
        if compoundEndings.contains(where: folded.hasSuffix) { return true }
        return folded.split(separator: " ").last.map { lastWords.contains(String($0)) } ?? false
    }
}
