import Foundation
import Gazetteer
import Geo

/// Reads the suites of ../shared/corpus/geocode into ``AcceptanceCase``s.
///
/// Contract: a file that is missing or malformed throws, naming it — a suite must never
/// silently shrink to nothing. The selection (which files, which runs) is the one issue
/// 4 names; `all(in:)` returns them in a stable order.
public enum AcceptanceSuites {
    /// Why a suite cannot be read.
    public struct Failure: Error, CustomStringConvertible {
        /// What is wrong, naming the file.
        public var description: String
    }

    /// Every suite run: name, cases.
    public static func all(in corpus: URL) throws -> [(name: String, cases: [AcceptanceCase])] {
        let tester = corpus.appendingPathComponent("geocoder-tester")
        let pelias = corpus.appendingPathComponent("pelias-acceptance-tests")
        var runs: [(String, [AcceptanceCase])] = []
        let usa = try geocoderTester(tester.appendingPathComponent("usa_test_cities.csv"), suite: "usa_test_cities")
        runs.append(("usa_test_cities (top 1)", usa))
        runs.append(
            (
                "usa_test_cities (top 5)",
                usa.map {
                    var c = $0; c.rank = 5; return c
                }
            ))
        runs.append(
            (
                "usa_test_cities --country US (top 1)",
                usa.map {
                    var c = $0; c.options.countryCode = "US"; return c
                }
            ))
        for name in [
            "germany_test_cities", "germany_test_towns", "germany_test_autocomplete", "poland_de_test_cities",
            "germany_test_location_bias",
            // Not named by the issue: run as a check that ranking changes made for the
            // named suites do not cost elsewhere.
            "poland_test_cities", "germany_test_villages",
        ] {
            runs.append((name, try geocoderTester(tester.appendingPathComponent(name + ".csv"), suite: name)))
        }
        for name in [
            "autocomplete_endonyms", "autocomplete_multi_lang", "search_city_country", "admin_translations",
            "search_spelling_mistakes", "placeholder_sorting",
        ] {
            runs.append((name, try peliasSuite(pelias.appendingPathComponent(name + ".json"), suite: name)))
        }
        return runs
    }

    /// The project's own suites (Tests/Acceptance/*.csv, geocoder-tester format): classes
    /// of queries the external suites do not cover (names in their own script, official
    /// long forms), a dozen or more cases each, in file-name order.
    public static func project(in directory: URL) throws -> [(name: String, cases: [AcceptanceCase])] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let suites = files.filter { $0.hasSuffix(".csv") }.sorted()
        guard !suites.isEmpty else { throw Failure(description: "no .csv suites in \(directory.path)") }
        return try suites.map { file in
            let name = "airloc: " + file.dropLast(4)
            return (name, try geocoderTester(directory.appendingPathComponent(file), suite: name))
        }
    }

    /// geocoder-tester: `;`-separated with a header naming the columns.
    public static func geocoderTester(_ url: URL, suite: String) throws -> [AcceptanceCase] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw Failure(description: "cannot read \(url.path)")
        }
        let lines = text.split(whereSeparator: \.isNewline).map(String.init)
        guard let header = lines.first?.split(separator: ";", omittingEmptySubsequences: false).map(String.init),
            let queryColumn = header.firstIndex(of: "query"), let nameColumn = header.firstIndex(of: "expected_name")
        else { throw Failure(description: "\(url.lastPathComponent): no header with query and expected_name") }
        let coordinateColumn = header.firstIndex(of: "expected_coordinate")
        let latColumn = header.firstIndex(of: "lat")
        let lonColumn = header.firstIndex(of: "lon")
        // geocoder-tester asks for `limit` results and passes when any of them matches.
        let limitColumn = header.firstIndex(of: "limit")
        var cases: [AcceptanceCase] = []
        for (number, line) in lines.dropFirst().enumerated() {
            let cols = line.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            guard cols.count > max(queryColumn, nameColumn) else {
                throw Failure(description: "\(url.lastPathComponent) line \(number + 2): too few columns")
            }
            var coordinate: Coordinate?
            var tolerance = 0.0
            if let coordinateColumn, coordinateColumn < cols.count {
                let parts = cols[coordinateColumn].split(separator: ",").compactMap { Double($0) }
                if parts.count >= 2 { coordinate = try? Coordinate(latitude: parts[0], longitude: parts[1]) }
                if parts.count >= 3 { tolerance = parts[2] }
            }
            var options = SearchOptions()
            if let latColumn, let lonColumn, lonColumn < cols.count, let lat = Double(cols[latColumn]),
                let lon = Double(cols[lonColumn])
            {
                options.near = try? Coordinate(latitude: lat, longitude: lon)
            }
            let expected = cols[nameColumn]
            let limit = limitColumn.flatMap { $0 < cols.count ? Int(cols[$0]) : nil } ?? 1
            cases.append(
                AcceptanceCase(
                    suite: suite, query: cols[queryColumn], expectedName: expected, expectedCoordinate: coordinate,
                    toleranceMetres: tolerance, expectedCountryISO3: nil, options: options, rank: max(limit, 1),
                    outOfScope: StreetWords.isStreetOrVenue(expected) || cols[queryColumn].contains(where: \.isNumber)
                        ? "street or address" : nil))
        }
        return cases
    }

    /// pelias acceptance-tests JSON.
    public static func peliasSuite(_ url: URL, suite: String) throws -> [AcceptanceCase] {
        guard let data = try? Data(contentsOf: url),
            let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let tests = root["tests"] as? [[String: Any]]
        else { throw Failure(description: "cannot read pelias suite \(url.path)") }
        let suiteRank = root["priorityThresh"] as? Int ?? 1
        var cases: [AcceptanceCase] = []
        for test in tests {
            let input = test["in"] as? [String: Any] ?? [:]
            let expected = test["expected"] as? [String: Any] ?? [:]
            guard let first = (expected["properties"] as? [[String: Any]])?.first else { continue }
            let text = input["text"] as? String
            let layer = first["layer"] as? String
            let name = (first["name"] as? String) ?? (first["locality"] as? String) ?? (first["region"] as? String)
            var options = SearchOptions()
            if let lat = double(input["focus.point.lat"]), let lon = double(input["focus.point.lon"]) {
                options.near = try? Coordinate(latitude: lat, longitude: lon)
            }
            if let country = input["boundary.country"] as? String { options.countryCode = country }
            var outOfScope: String?
            if text == nil {
                outOfScope = "structured or reverse query"
            } else if let layer, ["venue", "address", "street", "neighbourhood"].contains(layer) {
                outOfScope = layer
            } else if text!.contains(where: \.isNumber) || name.map(StreetWords.isStreetOrVenue) == true {
                outOfScope = "address"
            } else if name == nil {
                outOfScope = "no expected name"
            } else if input["boundary.rect.min_lat"] != nil || input["boundary.circle.lat"] != nil {
                outOfScope = "bounding-box filter"
            }
            cases.append(
                AcceptanceCase(
                    suite: suite, query: text ?? "", expectedName: name ?? "", expectedCoordinate: nil,
                    toleranceMetres: 0, expectedCountryISO3: first["country_a"] as? String,
                    expectedDependency: first["dependency"] as? String, options: options,
                    rank: (expected["priorityThresh"] as? Int) ?? suiteRank, outOfScope: outOfScope))
        }
        return cases
    }

    private static func double(_ value: Any?) -> Double? {
        if let number = value as? Double { return number }
        if let number = value as? Int { return Double(number) }
        return (value as? String).flatMap(Double.init)
    }
}
