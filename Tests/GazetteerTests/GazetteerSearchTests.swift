import Foundation
import Geo
import TestSupport
import Testing

@testable import Gazetteer

/// Search on a small gazetteer built from GeoNames-format files written here, so every
/// ranking rule is checked against places whose numbers the test controls.
@Suite struct GazetteerSearchTests {
    static func row(
        _ id: Int, _ name: String, _ alternates: [String], _ lat: Double, _ lon: Double, _ cc: String,
        _ admin: String, _ pop: Int, feature: String = "PPL", tz: String = "Europe/Berlin"
    ) -> String {
        let columns: [String] = [
            String(id), name, name, alternates.joined(separator: ","), String(lat), String(lon), "P", feature, cc, "",
            admin, "", "", "", String(pop), "", "", tz, "2024-01-01",
        ]
        return columns.joined(separator: "\t")
    }

    /// Munich/Mumbai/villages, namesakes in two countries, a region sharing a city's
    /// name, codes and exonyms.
    static func fixture() throws -> (Gazetteer, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let cities = [
            row(
                2867714, "Munich", ["München", "Muenchen", "MUC", "Monaco di Baviera"], 48.13743, 11.57549, "DE", "02",
                1_260_391),
            row(1275339, "Mumbai", ["Bombay"], 19.07283, 72.88261, "IN", "16", 12_691_836, tz: "Asia/Kolkata"),
            row(100, "Munningen", [], 48.916, 10.6, "DE", "02", 1_600),
            row(
                2988507, "Paris", ["Parijs", "PAR", "Lutetia"], 48.85341, 2.3488, "FR", "11", 2_138_551,
                feature: "PPLC", tz: "Europe/Paris"),
            row(4717560, "Paris", [], 33.66094, -95.55551, "US", "TX", 24_171, tz: "America/Chicago"),
            row(200, "Par", [], 50.35, -4.7, "GB", "ENG", 1_600, tz: "Europe/London"),
            row(
                5128581, "New York City", ["New York", "NYC"], 40.71427, -74.00597, "US", "NY", 8_804_190,
                tz: "America/New_York"),
            row(
                2643743, "London", ["Londres", "Londra"], 51.50853, -0.12574, "GB", "ENG", 8_961_989, feature: "PPLC",
                tz: "Europe/London"),
            row(
                6058560, "London", ["Londono", "YXU"], 42.98339, -81.23304, "CA", "08", 422_324, tz: "America/Toronto"),
            row(
                4049979, "Birmingham", ["Birmingem"], 33.52066, -86.80249, "US", "AL", 200_733, tz: "America/Chicago"),
            row(
                5106529, "Woodbridge", ["Woodbridge Township"], 40.5576, -74.28459, "US", "NJ", 19_265,
                tz: "America/New_York"),
            row(12750392, "Woodbridge", [], 33.67724, -117.79442, "US", "CA", 24_966, tz: "America/Los_Angeles"),
            row(2655603, "Birmingham", [], 52.48142, -1.89983, "GB", "ENG", 984_333, tz: "Europe/London"),
            row(4250542, "Springfield", [], 39.80172, -89.64371, "US", "IL", 114_394, tz: "America/Chicago"),
            row(4409896, "Springfield", [], 37.21533, -93.29824, "US", "MO", 169_176, tz: "America/Chicago"),
            row(2147714, "Sydney", [], -33.86785, 151.20732, "AU", "02", 4_627_345, tz: "Australia/Sydney"),
            row(
                2759794, "Amsterdam", [], 52.37403, 4.88969, "NL", "07", 741_636, feature: "PPLC",
                tz: "Europe/Amsterdam"),
            row(
                1850147, "Tokyo", ["Tokio", "Edo"], 35.6895, 139.69171, "JP", "40", 8_336_599, feature: "PPLC",
                tz: "Asia/Tokyo"),
            row(
                3652462, "Quito", ["San Francisco de Quito"], -0.22985, -78.52495, "EC", "18", 2_781_641,
                feature: "PPLC", tz: "America/Guayaquil"),
            row(
                5391959, "San Francisco", ["SF"], 37.77493, -122.41942, "US", "CA", 827_526,
                tz: "America/Los_Angeles"),
            row(300, "St. Louis", ["Saint Louis"], 38.62727, -90.19789, "US", "MO", 315_685, tz: "America/Chicago"),
        ].joined(separator: "\n")
        try cities.write(to: directory.file("cities500.txt"), atomically: true, encoding: .utf8)
        try """
        DE.02\tBayern\tBayern\t2951839
        IN.16\tMaharashtra\tMaharashtra\t1264418
        FR.11\tÎle-de-France\tIle-de-France\t3012874
        US.TX\tTexas\tTexas\t4736286
        US.NY\tNew York\tNew York\t5128638
        US.AL\tAlabama\tAlabama\t4829764
        US.NJ\tNew Jersey\tNew Jersey\t5101760
        US.CA\tCalifornia\tCalifornia\t5332921
        US.IL\tIllinois\tIllinois\t4896861
        US.MO\tMissouri\tMissouri\t4398678
        GB.ENG\tEngland\tEngland\t6269131
        CA.08\tOntario\tOntario\t6093943
        AU.02\tNew South Wales\tNew South Wales\t2155400
        NL.07\tNorth Holland\tNorth Holland\t2749879
        JP.40\tTokyo\tTokyo\t1850144
        EC.18\tPichincha\tPichincha\t3653224

        """.write(to: directory.file("admin1CodesASCII.txt"), atomically: true, encoding: .utf8)
        func country(_ iso: String, _ iso3: String, _ name: String, _ pop: Int, _ id: Int) -> String {
            "\(iso)\t\(iso3)\t0\t\t\(name)\t\t0\t\(pop)\tEU\t\t\t\t\t\t\t\t\(id)\t\t"
        }
        try
            ([
                "#ISO", country("DE", "DEU", "Germany", 82_927_922, 2921044),
                country("IN", "IND", "India", 1_352_617_328, 1269750),
                country("FR", "FRA", "France", 66_987_244, 3017382),
                country("US", "USA", "United States", 327_167_434, 6252001),
                country("GB", "GBR", "United Kingdom", 66_488_991, 2635167),
                country("CA", "CAN", "Canada", 37_058_856, 6251999),
                country("AU", "AUS", "Australia", 24_992_369, 2077456),
                country("NL", "NLD", "Netherlands", 17_231_017, 2750405),
                country("JP", "JPN", "Japan", 126_529_100, 1861060),
                country("PY", "PRY", "Paraguay", 6_956_071, 3437598),
                country("EC", "ECU", "Ecuador", 17_084_357, 3658394),
            ].joined(separator: "\n") + "\n").write(
                to: directory.file("countryInfo.txt"), atomically: true, encoding: .utf8)
        try [
            "1\t2951839\tabbr\tBY\t\t\t\t\t\t", "2\t2951839\ten\tBavaria\t\t\t\t\t\t",
            "3\t4736286\tabbr\tTX\t\t\t\t\t\t", "4\t4896861\tabbr\tIL\t\t\t\t\t\t", "5\t4398678\tabbr\tMO\t\t\t\t\t\t",
            "6\t6093943\tabbr\tON\t\t\t\t\t\t", "7\t2921044\tde\tDeutschland\t\t\t\t\t\t",
            "8\t2635167\ten\tUK\t\t\t\t\t\t", "9\t2988507\tlink\thttps://en.wikipedia.org/wiki/Paris\t\t\t\t\t\t",
            "10\t2988507\tpost\t75001\t\t\t\t\t\t", "11\t5128638\tabbr\tNY\t\t\t\t\t\t",
        ].joined(separator: "\n").write(to: directory.file("alternateNamesV2.txt"), atomically: true, encoding: .utf8)
        return (try TestGazetteer.build(in: directory), directory)
    }

    /// Built once for the whole suite (the gazetteer is immutable and thread-safe); its
    /// folder is removed at once — the mapping keeps the data alive.
    static let built: Result<Gazetteer, any Error> = Result {
        let (gazetteer, directory) = try fixture()
        directory.remove()
        return gazetteer
    }

    static func shared() throws -> Gazetteer { try built.get() }

    static func names(_ results: [SearchResult]) -> [String] { results.map(\.place.displayName) }

    @Test func caseAccentsAndAlternateNames() throws {
        let g = try Self.shared()
        for query in ["München", "munchen", "MÜNCHEN", "Muenchen", "Munich"] {
            #expect(g.search(query).first?.place.name == "Munich", "\(query)")
        }
        #expect(g.search("münch").first?.matchedName == "München")
        #expect(g.search("Londres").first?.place.id == 2643743)
        #expect(g.search("Tokio").first?.place.name == "Tokyo")
    }

    @Test func prefixesRankByImportanceAndExactNamesRankUp() throws {
        let g = try Self.shared()
        // "Par": the capital before the village called exactly "Par" and before Paraguay.
        #expect(g.search("Par").first?.place.id == 2988507)
        #expect(
            Self.names(g.search("Mu", options: SearchOptions(limit: 3))) == [
                "Mumbai, Maharashtra, India", "Munich, Bayern, Germany", "Munningen, Bayern, Germany",
            ])
        #expect(Self.names(g.search("Mun")) == ["Munich, Bayern, Germany", "Munningen, Bayern, Germany"])
        #expect(g.search("New Y").first?.place.id == 5128581)
        // A whole name beats a bigger place it is only the beginning of.
        #expect(g.search("New York").first?.place.id == 5128581)
    }

    /// The start of an alternate name counts for less than the start of a place's own
    /// name: "San Fra" is San Francisco, not Quito (a capital, three times its size)
    /// through "San Francisco de Quito". A whole alternate name still counts in full.
    @Test func theStartOfAnAlternateNameWeighsLess() throws {
        let g = try Self.shared()
        #expect(g.search("San Fra").map(\.place.name) == ["San Francisco", "Quito"])
        #expect(g.search("San Francisco de Quito").first?.place.name == "Quito")
        #expect(g.search("Londres").first?.place.id == 2643743)
        // Under four letters an alternate name matches only whole: "Mon" is not the
        // start of Munich ("Monaco di Baviera"), "Monac" is; "Edo" is Tokyo, "Ed" is not.
        #expect(!g.search("Mon").contains { $0.place.name == "Munich" })
        #expect(g.search("Monac").first?.place.name == "Munich")
        #expect(g.search("Edo").first?.place.name == "Tokyo")
        #expect(g.search("Ed").isEmpty)
    }

    /// Alternate names a short query does not match must not take the places of names it
    /// does: a big city with 60 alternates starting "zq" (all weightier than the villages)
    /// and twelve villages named "Zq…": "zq" lists ten villages.
    @Test func skippedAlternatesDoNotCrowdOutAShortQuerysPlaces() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let alternates = (0..<60).map { "Zq Name \($0)" }
        let villages = (0..<12).map {
            Self.row(1000 + $0, "Zqvillage \($0)", [], 48, 11 + Double($0) / 10, "DE", "02", 600)
        }
        try ([Self.row(999, "Bigcity", alternates, 48.1, 11.5, "DE", "02", 9_000_000)] + villages)
            .joined(separator: "\n").write(to: directory.file("cities500.txt"), atomically: true, encoding: .utf8)
        try "DE.02\tBayern\tBayern\t2951839\n".write(
            to: directory.file("admin1CodesASCII.txt"), atomically: true, encoding: .utf8)
        try "DE\tDEU\t0\t\tGermany\t\t0\t82927922\tEU\t\t\t\t\t\t\t\t2921044\t\t\n".write(
            to: directory.file("countryInfo.txt"), atomically: true, encoding: .utf8)
        let g = try TestGazetteer.build(in: directory)
        let names = g.search("zq").map(\.place.name)
        #expect(names.count == 10 && names.allSatisfy { $0.hasPrefix("Zqvillage") }, "\(names)")
        #expect(g.search("zq n").first?.place.name == "Bigcity", "from four letters the alternates count")
    }

    @Test func typosRankBelowEveryExactOrPrefixMatch() throws {
        let g = try Self.shared()
        for (query, expected) in [
            ("Londn", 2643743), ("Amsterdm", 2759794), ("Sydeny", 2147714), ("neu yorp", 5128581),
        ] {
            let first = try #require(g.search(query).first, "\(query)")
            #expect(first.place.id == expected, "\(query)")
            #expect(first.match != .exact && first.match != .prefix, "\(query) matched \(first.match)")
        }
        // Three letters get no typo allowance; a first-letter typo is found in a second pass.
        #expect(g.search("Lnd").isEmpty)
        #expect(g.search("Kondon").first?.place.name == "London")
        if case .typo(let n) = try #require(g.search("Amsterdm").first).match { #expect(n == 1) }
    }

    @Test func qualifiersPickTheNamesake() throws {
        let g = try Self.shared()
        #expect(g.search("Paris TX").first?.place.id == 4717560)
        #expect(g.search("Paris, Texas").first?.place.id == 4717560)
        #expect(g.search("Paris, France").first?.place.id == 2988507)
        #expect(g.search("Springfield IL").first?.place.admin1 == "Illinois")
        #expect(g.search("Springfield, MO").first?.place.admin1 == "Missouri")
        #expect(g.search("London, ON").first?.place.countryCode == "CA")
        #expect(g.search("London, CA").first?.place.countryCode == "CA")
        #expect(g.search("London, CAN").first?.place.countryCode == "CA", "an alpha-3 code")
        #expect(g.search("London, ca").first?.place.countryCode == "CA", "in any case")
        #expect(g.search("London, UK").first?.place.countryCode == "GB")
        #expect(g.search("Japan, Tokyo").first?.place.id == 1850147)
        #expect(g.search("Munich, Deutschland").first?.place.id == 2867714)
        #expect(g.search("London", options: SearchOptions(countryCode: "CA")).map(\.place.countryCode) == ["CA"])
    }

    /// A place with no other name in any language (here a neighbourhood of Irvine) weighs
    /// half: the town with names comes first though it is a little smaller...
    @Test func aPlaceKnownByNoOtherNameWeighsHalf() throws {
        let g = try Self.shared()
        #expect(g.search("Woodbridge").map(\.place.admin1) == ["New Jersey", "California"])
        // ...but not when the other is more than twice its size: Birmingham, England has
        // no other name in this data and still comes before Alabama's, a fifth of it.
        #expect(g.search("Birmingham").first?.place.countryCode == "GB")
    }

    @Test func locationBiasLiftsANearbyNamesakeButNotABurialOfABigCity() throws {
        let g = try Self.shared()
        #expect(g.search("Birmingham").first?.place.countryCode == "GB")
        let alabama = try Coordinate(latitude: 32.8, longitude: -86.6)
        let near = g.search("Birmingham", options: SearchOptions(near: alabama))
        #expect(near.first?.place.countryCode == "US")
        #expect((near.first?.distance ?? .infinity) < 100_000)
        // At home in London, Ontario, "London" is that London...
        let ontario = try Coordinate(latitude: 43, longitude: -81.2)
        #expect(g.search("London", options: SearchOptions(near: ontario)).first?.place.countryCode == "CA")
        #expect(g.search("London").first?.place.countryCode == "GB")
        // ...but a Paris of 24,000 in Texas does not bury the French capital (265× its weight).
        let texas = try Coordinate(latitude: 33.6, longitude: -95.5)
        #expect(g.search("Paris", options: SearchOptions(near: texas)).map(\.place.id) == [2988507, 4717560])
    }

    @Test func regionsAndCountriesAreResultsToo() throws {
        let g = try Self.shared()
        let bavaria = try #require(g.search("Bavaria").first)
        #expect(bavaria.place.name == "Bayern" && bavaria.place.featureCode == "ADM1")
        #expect(bavaria.place.displayName == "Bayern, Germany")
        let germany = try #require(g.search("Deutschland").first)
        #expect(germany.place.featureCode == "PCLI" && germany.place.countryCode == "DE")
        // A country's centre is among its places, its time zone that of its biggest.
        #expect(germany.place.coordinate.latitude > 47 && germany.place.coordinate.latitude < 50)
        #expect(germany.place.timezone == "Europe/Berlin")
        // Codes match only whole: "NYC" and "UK" find their targets, "MU" does not find MUC.
        #expect(g.search("NYC").first?.place.id == 5128581)
        #expect(g.search("UK").first?.place.name == "United Kingdom")
        #expect(!g.search("MU").contains { $0.matchedName == "MUC" })
        // Links and postal codes from alternateNames are not names.
        #expect(g.search("75001").isEmpty)
        #expect(g.search("https").isEmpty)
    }

    @Test func everyPlaceOnceAndTheLimitHolds() throws {
        let g = try Self.shared()
        let results = g.search("Mu", options: SearchOptions(limit: 50))
        #expect(Set(results.map(\.place.id)).count == results.count)
        #expect(g.search("Mu", options: SearchOptions(limit: 1)).count == 1)
        #expect(g.search("Mu", options: SearchOptions(limit: 0)).isEmpty)
    }

    @Test(arguments: [
        "", " ", "M", "ö", "🙂", "   \t", String(repeating: "x", count: 10_000), "\u{0}\u{1}", "%00", "\"'",
        "مرحبا", "\u{202E}London", String(repeating: "ab ", count: 3000), "Paris, , ,", ",,,",
    ])
    func badInputNeverCrashes(query: String) throws {
        let g = try Self.shared()
        let results = g.search(query)
        #expect(results.count <= 10)
        if SearchKey.fold(query).count < 2 { #expect(results.isEmpty) }
    }

    @Test func configuredPlaceNamesUseTheIndex() throws {
        let g = try Self.shared()
        #expect(g.place(named: "Paris")?.id == 2988507)
        #expect(g.place(named: "paris, tx")?.id == 4717560)
        #expect(g.place(named: "Paris, US")?.id == 4717560)
        #expect(g.place(named: "München")?.id == 2867714)
        #expect(g.place(named: "Pari") == nil, "no prefix guessing for a configured place")
        #expect(g.place(named: "Paris, Narnia") == nil)
    }
}
