import Foundation
import Geo
import TestSupport
import Testing

@testable import Gazetteer

/// The builder and reader on tiny GeoNames-format files, plus the shipped data.
@Suite struct GazetteerTests {
    static func row(_ id: Int, _ name: String, _ lat: Double, _ lon: Double, _ cc: String, _ admin: String, _ pop: Int)
        -> String
    {
        "\(id)\t\(name)\t\(name)\t\t\(lat)\t\(lon)\tP\tPPL\t\(cc)\t\t\(admin)\t\t\t\t\(pop)\t\t\t\(cc == "FJ" ? "Pacific/Fiji" : "Europe/Berlin")\t2024-01-01"
    }

    /// Writes tiny dump files and builds a gazetteer from them.
    static func tiny() throws -> (Gazetteer, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let cities = [
            row(1, "Erding", 48.30603, 11.90686, "DE", "02", 33519),
            row(2, "Berlin", 52.52437, 13.41053, "DE", "16", 3_426_354),
            row(3, "Mitte", 52.52003, 13.40489, "DE", "16", 98_000),
            row(4, "Levuka", -17.68, 178.83, "FJ", "05", 1000),
            row(5, "Rabi", -16.5, -179.98, "FJ", "01", 600),
        ].joined(separator: "\n")
        try cities.write(to: directory.file("cities500.txt"), atomically: true, encoding: .utf8)
        try "DE.02\tBavaria\tBavaria\t2951839\nDE.16\tBerlin\tBerlin\t2950157\nFJ.05\tEastern\tEastern\t1\n"
            .write(to: directory.file("admin1CodesASCII.txt"), atomically: true, encoding: .utf8)
        let countries =
            "#ISO\tISO3\n"
            + [
                "DE\tDEU\t276\tGM\tGermany\tBerlin\t357021\t82927922\tEU\t.de\tEUR\tEuro\t49\t#####\t^(\\d{5})$\tde\t2921044\t\t",
                "FJ\tFJI\t242\tFJ\tFiji\tSuva\t18270\t883483\tOC\t.fj\tFJD\tDollar\t679\t\t\ten-FJ\t2205218\t\t",
            ].joined(separator: "\n")
        try countries.write(to: directory.file("countryInfo.txt"), atomically: true, encoding: .utf8)
        return (try TestGazetteer.build(in: directory), directory)
    }

    /// Built once for the lookup tests; the folder goes at once (the mapping stays).
    static let built: Result<Gazetteer, any Error> = Result {
        let (gazetteer, directory) = try tiny()
        directory.remove()
        return gazetteer
    }

    static func shared() throws -> Gazetteer { try built.get() }

    @Test func nearestPlaceWithAdminAndCountryNames() throws {
        let gazetteer = try Self.shared()
        let answer = try #require(gazetteer.nearest(to: try Coordinate(latitude: 48.33, longitude: 11.95)))
        #expect(answer.place.displayName == "Erding, Bavaria, Germany")
        #expect(answer.place.countryCode == "DE")
        #expect(abs(answer.distance - 4_100) < 300)
        #expect(answer.relativeDescription.hasSuffix("km NE of Erding"))
    }

    @Test func nearestAcrossTheAntimeridian() throws {
        let gazetteer = try Self.shared()
        // 179.95° E is 6 km from Rabi at -179.98° but 125 km from Levuka.
        let answer = try #require(gazetteer.nearest(to: try Coordinate(latitude: -16.5, longitude: 179.95)))
        #expect(answer.place.name == "Rabi")
        #expect(answer.distance < 10_000)
    }

    @Test func nearPoleAndFarAwayStillFindTheNearest() throws {
        let gazetteer = try Self.shared()
        let answer = try #require(gazetteer.nearest(to: try Coordinate(latitude: 89.9, longitude: -100)))
        #expect(answer.place.name == "Berlin" || answer.place.name == "Mitte")
    }

    @Test func localityPrefersTheCityOverItsDistrict() throws {
        let gazetteer = try Self.shared()
        let point = try Coordinate(latitude: 52.5200, longitude: 13.4050)
        #expect(gazetteer.nearest(to: point)?.place.name == "Mitte")
        #expect(gazetteer.locality(for: point)?.place.name == "Berlin")
    }

    @Test func placeByID() throws {
        let gazetteer = try Self.shared()
        #expect(gazetteer.place(id: 2)?.name == "Berlin")
        #expect(gazetteer.place(id: 99) == nil)
        #expect(gazetteer.count == 5)
        #expect(gazetteer.metadata["source"] == "test")
    }

    @Test func buildingIsDeterministic() throws {
        let (_, directory) = try Self.tiny()
        defer { directory.remove() }
        let builder = try TestGazetteer.builder(in: directory)
        #expect(builder.build() == Array(try Data(contentsOf: directory.file("gazetteer.bin"))))
    }

    @Test func truncatedOrForeignFilesAreCorruptNotACrash() throws {
        let (_, directory) = try Self.tiny()
        defer { directory.remove() }
        let bytes = try Data(contentsOf: directory.file("gazetteer.bin"))
        try bytes.prefix(bytes.count / 2).write(to: directory.file("half.bin"))
        #expect(throws: GazetteerError.self) { try Gazetteer(path: directory.file("half.bin").path) }
        try Data("hello world, not a gazetteer".utf8).write(to: directory.file("text.bin"))
        #expect(throws: GazetteerError.self) { try Gazetteer(path: directory.file("text.bin").path) }
        #expect(throws: GazetteerError.self) { try Gazetteer(path: directory.file("missing.bin").path) }
    }

    /// A file of another format version (format 3 stored ranking weights that format 4
    /// applies when searching) is named as such, not as damaged.
    @Test func aFileOfAnotherFormatVersionSaysSo() throws {
        let (_, directory) = try Self.tiny()
        defer { directory.remove() }
        var bytes = try Data(contentsOf: directory.file("gazetteer.bin"))
        bytes[8] = 3
        let path = directory.file("old.bin").path
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(throws: GazetteerError.otherVersion(path: path, version: 3, supported: GazetteerFormat.version)) {
            try Gazetteer(path: path)
        }
        #expect(
            GazetteerError.otherVersion(path: path, version: 3, supported: 4).description
                == "place data \(path) is in format version 3; this airloc reads version 4")
    }

    @Test func aMalformedDumpLineIsReportedWithItsLine() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try (Self.row(1, "A", 1, 1, "DE", "01", 1) + "\n2\tB\tB\t\tnorth\t1\tP\tPPL\tDE\t\t01\t\t\t\t1\t\t\tX\t\n")
            .write(to: directory.file("cities500.txt"), atomically: true, encoding: .utf8)
        #expect(
            throws: GazetteerError.badInput(
                file: "cities500.txt", line: 2, reason: "expected geonameid, latitude, longitude in columns 1, 5, 6")
        ) {
            _ = try GeoNamesDump.places(at: directory.file("cities500.txt"))
        }
    }

    @Test func shippedDataCoversTheWorld() throws {
        let gazetteer = try Gazetteer(path: PackagePaths.file("data/gazetteer.bin").path)
        #expect(gazetteer.count > 200_000)
        let berlin = try #require(gazetteer.locality(for: try Coordinate(latitude: 52.52, longitude: 13.405)))
        #expect(berlin.place.displayName == "Berlin, Berlin, Germany")
        #expect(berlin.place.timezone == "Europe/Berlin")
        let sydney = try #require(gazetteer.locality(for: try Coordinate(latitude: -33.87, longitude: 151.21)))
        #expect(sydney.place.name == "Sydney")
        #expect(sydney.place.admin1 == "New South Wales")
    }
}

/// The tree search against brute force on the shipped data: the nearest place must be
/// exactly the one a scan of every place finds, for random points everywhere.
@Suite struct NearestExactnessTests {
    @Test func treeSearchAgreesWithAFullScan() async throws {
        // Seconds of scanning in a debug build: on a thread of its own, not the small
        // cooperative pool the gpsd tests' timers need.
        let comparisons = try await offPool { try Self.compareWithAFullScan() }
        #expect(comparisons.count == 30)
        for (point, found, best) in comparisons {
            // Equal up to float rounding of the stored unit vectors (well under a metre).
            #expect(abs(found - best) < 1, "\(point): tree \(found) m, scan \(best) m")
        }
    }

    /// The seeds and the cells decided at build time (most of the ocean) give exactly
    /// the answer of a search that uses neither.
    @Test func decidedCellsAgreeWithAnUnseededSearch() async throws {
        let disagreements = try await offPool { () -> [String] in
            let gazetteer = try Gazetteer(path: PackagePaths.file("data/gazetteer.bin").path)
            var state: UInt64 = 11
            func next() -> Double {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Double(state >> 11) / Double(1 << 53)
            }
            var out: [String] = []
            for _ in 0..<5_000 {
                let point = try Coordinate(latitude: next() * 180 - 90, longitude: next() * 360 - 180)
                let seeded = gazetteer.nearestIndex(to: point)
                let plain = gazetteer.nearestIndexWithoutSeeds(to: point)
                if seeded != plain {
                    out.append("\(point): \(String(describing: seeded)) vs \(String(describing: plain))")
                }
            }
            return out
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    }

    /// (point, distance to the tree's answer, distance to the scan's answer).
    static func compareWithAFullScan() throws -> [(Coordinate, Double, Double)] {
        let gazetteer = try Gazetteer(path: PackagePaths.file("data/gazetteer.bin").path)
        let all = (0..<gazetteer.count).map { gazetteer.coordinate(at: $0) }
        var state: UInt64 = 7
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        var comparisons: [(Coordinate, Double, Double)] = []
        for _ in 0..<30 {
            let point = try Coordinate(latitude: next() * 180 - 90, longitude: next() * 360 - 180)
            guard let found = gazetteer.nearestIndex(to: point) else { continue }
            var best = Double.infinity
            for place in all { best = min(best, place.distance(to: point)) }
            comparisons.append((point, all[found].distance(to: point), best))
        }
        return comparisons
    }
}
