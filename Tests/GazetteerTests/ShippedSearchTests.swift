import Foundation
import Geo
import GeocodeAcceptance
import TestSupport
import Testing

@testable import Gazetteer

/// The issue's examples on the data airloc ships, and the external acceptance suites
/// (../shared/corpus/geocode; present in CI, where their absence is a failure).
@Suite struct ShippedSearchTests {
    static let gazetteer = try? Gazetteer(path: PackagePaths.file("data/gazetteer.bin").path)

    static func first(_ query: String, _ options: SearchOptions = SearchOptions()) throws -> Place {
        let g = try #require(gazetteer, "data/gazetteer.bin must load")
        return try #require(g.search(query, options: options).first, "no result for \(query)").place
    }

    @Test(arguments: [
        ("Par", "Paris, Île-de-France, France"), ("New Y", "New York City, New York, United States"),
        ("Londn", "London, England, United Kingdom"), ("Amsterdm", "Amsterdam, Noord-Holland, The Netherlands"),
        ("Sydeny", "Sydney, New South Wales, Australia"), ("neu yorp", "New York City, New York, United States"),
        ("Paris TX", "Paris, Texas, United States"), ("Portland, OR", "Portland, Oregon, United States"),
        ("Springfield IL", "Springfield, Illinois, United States"), ("Japan, Tokyo", "Tokyo, Tokyo, Japan"),
        ("Köln", "Köln, Nordrhein-Westfalen, Germany"), ("Cologne", "Köln, Nordrhein-Westfalen, Germany"),
        ("koln", "Köln, Nordrhein-Westfalen, Germany"), ("Londres", "London, England, United Kingdom"),
        ("Tokio", "Tokyo, Tokyo, Japan"), ("münche", "Munich, Bayern, Germany"),
        ("San Fra", "San Francisco, California, United States"), ("Bir", "Birmingham, England, United Kingdom"),
    ])
    func issueExamples(query: String, expected: String) throws {
        #expect(try Self.first(query).displayName == expected)
    }

    @Test func munFindsMunichBeforeVillages() throws {
        let g = try #require(Self.gazetteer)
        let top = g.search("Mun", options: SearchOptions(limit: 3)).map(\.place.name)
        #expect(top.contains("Munich"), "\(top)")
    }

    /// Typed as you type, "mun" is the start of a name: Munich, not Maturín's airport
    /// code MUN; typed in capitals, the code is meant.
    @Test func aLowerCaseCodeDoesNotOutrankTheNameBeingTyped() throws {
        #expect(try Self.first("mun").name == "Munich")
        #expect(try Self.first("MUN").name == "Maturín")
        #expect(try Self.first("nyc").name == "New York City", "a code with no rival still answers")
    }

    @Test func birminghamFromADeviceInAlabama() throws {
        #expect(try Self.first("Birmingham").countryCode == "GB")
        let alabama = try Coordinate(latitude: 33.2, longitude: -86.8)
        #expect(try Self.first("Birmingham", SearchOptions(near: alabama)).admin1 == "Alabama")
    }

    /// Official long forms of names the data holds short (issue 17): the short name is
    /// found, and the rest — a region in parentheses or after "in der", or the language
    /// of "-sur-" — picks among namesakes. Long forms the data does hold stay themselves.
    @Test(arguments: [
        ("Frankenthal (Pfalz)", "Frankenthal, Rheinland-Pfalz, Germany"),
        ("Weiden in der Oberpfalz", "Weiden, Bayern, Germany"),
        ("Cottbus - Chóśebuz", "Cottbus, Brandenburg, Germany"),
        ("Bozen / Bolzano", "Bolzano, Trentino-Alto Adige, Italy"),
        ("Mâcon-sur-Saône", "Mâcon, Bourgogne-Franche-Comté, France"),
        ("Mülheim an der Ruhr", "Mülheim, Nordrhein-Westfalen, Germany"),
        ("Halle (Saale)", "Halle (Saale), Sachsen-Anhalt, Germany"),
        ("Frankfurt (Oder)", "Frankfurt (Oder), Brandenburg, Germany"),
        ("Landsberg am Lech", "Landsberg am Lech, Bayern, Germany"),
        ("Rothenburg ob der Tauber", "Rothenburg ob der Tauber, Bayern, Germany"),
        ("Chalon sur Saone", "Chalon-sur-Saône, Bourgogne-Franche-Comté, France"),
        ("Kingston upon Hull", "Kingston upon Hull, England, United Kingdom"),
        ("Bergen op Zoom", "Bergen op Zoom, Noord-Brabant, The Netherlands"),
        ("Stratford upon Avonn", "Stratford-upon-Avon, England, United Kingdom"),
    ])
    func officialLongForms(query: String, expected: String) throws {
        #expect(try Self.first(query).displayName == expected)
    }

    /// Reverse answers stay in the region the point is in (issue 17): a big city's
    /// influence does not reach across a state or province line; central Berlin stays
    /// "Berlin". Each was the neighbouring region's city before.
    @Test(arguments: [
        (49.50, 8.42, "Ludwigshafen am Rhein, Rheinland-Pfalz, Germany"),  // was Mannheim (Baden-Württemberg)
        (13.87, 100.45, "Mueang Nonthaburi, Nonthaburi, Thailand"),  // was Bangkok
        (52.52, 13.40, "Berlin, Berlin, Germany"),
        (48.137, 11.575, "Munich, Bayern, Germany"),
    ])
    func reverseStaysInTheRegionThePointIsIn(latitude: Double, longitude: Double, expected: String) throws {
        let g = try #require(Self.gazetteer)
        let point = try Coordinate(latitude: latitude, longitude: longitude)
        #expect(g.locality(for: point)?.place.displayName == expected)
    }

    @Test func officialNameReadings() {
        #expect(
            OfficialName.readings(of: "Frankenthal (Pfalz)").map(\.core) == ["frankenthal"]
                && OfficialName.readings(of: "Frankenthal (Pfalz)").first?.hint == "pfalz")
        #expect(OfficialName.readings(of: "Cottbus - Chóśebuz").map(\.core) == ["cottbus", "chosebuz"])
        let weiden = OfficialName.readings(of: "Weiden in der Oberpfalz")
        #expect(weiden.map(\.core) == ["weiden"] && weiden.first?.hint == "oberpfalz")
        #expect(OfficialName.readings(of: "Berlin").isEmpty && OfficialName.readings(of: "New York").isEmpty)
    }

    /// The project's own suites (Tests/Acceptance): names in their own script and
    /// official long forms. Every case is one a user of that kind types; all must pass.
    @Test func ownAcceptanceSuitesPassWhole() async throws {
        let gazetteer = try #require(Self.gazetteer)
        let report = try await offPool {
            try AcceptanceReport(
                corpus: nil, projectSuites: PackagePaths.file("Tests/Acceptance"), gazetteer: gazetteer)
        }
        #expect(report.suites.count >= 2)
        for suite in report.suites {
            #expect(suite.inScope.count >= 12, "\(suite.name): a dozen cases or more")
            #expect(suite.hits == suite.inScope.count, "\(suite.name):\n\(report.text)")
        }
    }

    @Test func acceptanceSuitesMeetTheirFloors() async throws {
        guard let corpus = PackagePaths.corpus?.appendingPathComponent("geocode") else {
            #expect(!ExternalTool.isCI, "../shared/corpus/geocode is missing, and CI must run the acceptance suites")
            print(
                "note: ../shared/corpus not found; the geocoding acceptance suites run only where it exists (and in CI)"
            )
            return
        }
        let gazetteer = try #require(Self.gazetteer)
        // Seconds of CPU in a debug build: on a thread of its own, not the small
        // cooperative pool the gpsd tests' timers need.
        let report = try await offPool { try AcceptanceReport(corpus: corpus, gazetteer: gazetteer) }
        print(report.text)
        func rate(_ name: String) throws -> Double { try #require(report.suite(name), "suite \(name)").rate }
        // The gazetteer issue's targets (docs/performance.md has each miss and why). Two
        // of them are met with no case to spare (USA top 1: 270/300; with --country US:
        // 285/300). That is deliberate, not a flaky margin: search is deterministic (same
        // data, same code, same answer on any machine, no clock involved), and the floor
        // is the target users were promised, not the measured rate minus slack. A ranking
        // change that loses one of these cases must fail here and be decided on.
        #expect(try rate("usa_test_cities (top 5)") >= 0.99)
        #expect(try rate("usa_test_cities (top 1)") >= 0.90)
        #expect(try rate("usa_test_cities --country US (top 1)") >= 0.95)
        #expect(try rate("germany_test_cities") >= 0.97)
        #expect(try rate("germany_test_towns") >= 0.97)
        // Not the issue's: suites nothing here was tuned on, at their measured rates, so
        // that tuning for the ones above cannot quietly cost elsewhere.
        #expect(try rate("poland_test_cities") >= 1.0)
        #expect(try #require(report.suite("germany_test_villages")).hits >= 17)
        let pelias = [
            "autocomplete_endonyms", "autocomplete_multi_lang", "search_city_country", "admin_translations",
            "search_spelling_mistakes", "placeholder_sorting",
        ].compactMap(report.suite)
        let answerable = pelias.flatMap(\.answerable)
        let peliasRate = Double(answerable.filter(\.passed).count) / Double(max(answerable.count, 1))
        #expect(peliasRate >= 0.9, "pelias place-level cases whose name the data holds: \(peliasRate)")
    }
}
