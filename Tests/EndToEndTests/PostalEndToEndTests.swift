import Foundation
import TestSupport
import Testing

/// `airloc postal` as a user runs it: the built binary, the shipped data, and the HTTP
/// double serving Zippopotam.us's recorded answers.
@Suite(.enabled(if: ExternalTool.available("python3")), .serialized)
struct PostalEndToEndTests {
    static func run(_ arguments: [String], double: HTTPDouble) async throws -> ChildProcess.Result {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        return try await AirlocBinary.run(
            arguments,
            environment: AirlocBinary.environment(home: home.url, servicesAt: double))
    }

    static func json(_ result: ChildProcess.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
    }

    /// A service's answer cannot retitle or clear the user's terminal: control characters
    /// are gone where the answer enters, so from the text output and the JSON alike.
    @Test func serviceTextNeverControlsTheTerminal() async throws {
        let hostile =
            #"{"post code": "59801", "country": "United States", "country abbreviation": "US", "places": [{"place name": "Mis\u001b]0;pwned\u0007soula\u001b[2J", "longitude": "-114.0", "state": "Mon\u009btana", "state abbreviation": "MT", "latitude": "46.87"}]}"#
        let failure = #"{"error": true, "reason": "down\u001b[2J\u001b]0;x\u0007"}"#
        let double = try await HTTPDouble.start(faults: [
            #"{"path": "/us/59801", "status": 200, "body": \#(String(reflecting: hostile))}"#,
            #"{"path": "/us/59802", "status": 500, "body": \#(String(reflecting: failure))}"#,
        ])
        defer { double.stop() }
        let text = try await Self.run(["postal", "US", "59801", "--online"], double: double)
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.contains("Mis]0;pwnedsoula[2J"), "\(text)")
        for output in [text.stdout, text.stderr] {
            #expect(!output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{9B}" })
        }
        let json = try await Self.run(["postal", "US", "59801", "--online", "--json"], double: double)
        #expect(json.stdout.contains(#"Mis]0;pwnedsoula[2J"#), "\(json.stdout)")
        #expect(json.stdout.contains(#""Montana""#), "C1 characters are gone in JSON too: \(json.stdout)")
        #expect(!json.stdout.contains(#"\u001b"#) && !json.stdout.contains(#"\u009b"#), "\(json.stdout)")
        let failing = try await Self.run(["postal", "US", "59802", "--online"], double: double)
        #expect(failing.stderr.contains("down[2J]0;x"), "\(failing)")
        #expect(!failing.stderr.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" })
    }

    /// Codes the data has without a position sit at their town, and say so.
    @Test func derivedPositionsAreMarked() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let json = try Self.json(try await Self.run(["postal", "FR", "75001", "--json"], double: double))
        let place = try #require((json["places"] as? [[String: Any]])?.first)
        #expect(place["place_name"] as? String == "Paris", "the town's spelling, not the source's capitals")
        #expect(place["coordinate_derived"] as? Bool == true && place["source"] as? String == "offline")
        let ca = try await Self.run(["postal", "CA", "M2M", "1C8"], double: double)
        #expect(ca.status == 0 && ca.stdout.contains("Ontario (ON)"), "the first part, offline: \(ca)")
        #expect(try double.requests().isEmpty)
    }

    @Test func usCodesAreAnsweredOfflineWithoutARequest() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let result = try await Self.run(["postal", "us", "90210", "--json"], double: double)
        #expect(result.status == 0, "\(result)")
        let json = try Self.json(result)
        #expect(json["schema"] as? String == "airloc.postal/1")
        let place = try #require((json["places"] as? [[String: Any]])?.first)
        #expect(place["place_name"] as? String == "Beverly Hills")
        #expect(place["admin1_code"] as? String == "CA" && place["source"] as? String == "offline")
        #expect(place["timezone"] as? String == "America/Los_Angeles")
        #expect(
            (place["openstreetmap_url"] as? String)?.hasPrefix("https://www.openstreetmap.org/?mlat=34.09010") == true)
        #expect(try double.requests().isEmpty)
    }

    @Test func otherCountriesAskZippopotamWithTheCheckedCodeOnly() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let de = try Self.json(try await Self.run(["postal", "Germany", "39167", "--json"], double: double))
        let places = try #require(de["places"] as? [[String: Any]])
        #expect(places.count == 8, "DE 39167 has eight places")
        #expect(places.allSatisfy { $0["source"] as? String == "online" && $0["admin1_code"] as? String == "ST" })
        // The distance from the first place is given where the places differ.
        for place in places.dropFirst() {
            let samePoint =
                place["latitude"] as? Double == places[0]["latitude"] as? Double
                && place["longitude"] as? Double == places[0]["longitude"] as? Double
            #expect(samePoint ? place["distance_km"] is NSNull : (place["distance_km"] as? Double ?? 0) > 0)
        }
        let gb = try await Self.run(["postal", "GB", "sw1a", "1aa"], double: double)
        #expect(gb.status == 0 && gb.stdout.contains("London, England"), "\(gb)")
        let forced = try Self.json(
            try await Self.run(["postal", "USA", "84321", "--online", "--json"], double: double))
        #expect((forced["places"] as? [[String: Any]])?.first?["source"] as? String == "offline+online")
        #expect(try double.requests().map(\.path) == ["/de/39167", "/gb/SW1A", "/us/84321"])
    }

    @Test func notFoundSaysSoWithItsCode() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let result = try await Self.run(["postal", "FR", "99999"], double: double)
        #expect(result.status == 65)
        #expect(result.stderr == "Error: no place found for FR 99999\n", "\(result)")
    }

    @Test(arguments: [
        "../../etc/passwd", "90210?x=1", "90210#", "%2F", "90 210", "🙂", String(repeating: "9", count: 10_000), "",
        "a/b",
    ])
    func badCodesFailClearlyAndSendNothing(code: String) async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        for country in ["US", "DE"] {
            let result = try await Self.run(["postal", country, code], double: double)
            #expect(result.status == 65 || result.status == 64, "\(country) \(code.prefix(20)): \(result)")
            #expect(result.stderr.hasPrefix("Error: "), "\(result)")
            #expect(result.stderr.utf8.count < 400, "the message does not echo 10 kB back")
        }
        let us = try await Self.run(["postal", "US", code], double: double)
        if !code.isEmpty && code.count < 13 && !code.contains(where: { "?#%/🙂".contains($0) }) {
            #expect(us.stderr.contains("US codes are 5 digits"), "\(us)")
        }
        #expect(try double.requests().isEmpty, "nothing typed reaches the service")
    }

    @Test func unknownCountryIsAUsageError() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let result = try await Self.run(["postal", "Narnia", "12345"], double: double)
        #expect(result.status == 64 && result.stderr.contains("unknown country 'Narnia'"))
    }

    @Test(arguments: [
        (#"{"path": "/de/39167", "status": 429, "reason": "Too many requests"}"#, Int32(75), "Zippopotam.us"),
        (#"{"path": "/de/39167", "mode": "garbage"}"#, Int32(69), "Zippopotam.us"),
        (#"{"path": "/de/39167", "delay": 60}"#, Int32(75), "Zippopotam.us"),
    ])
    func serviceFailuresNameTheService(fault: String, status: Int32, message: String) async throws {
        let double = try await HTTPDouble.start(faults: [fault])
        defer { double.stop() }
        let home = try TemporaryDirectory()
        defer { home.remove() }
        try "[services]\ntimeout = 2\n".write(to: home.file("airloc.conf"), atomically: true, encoding: .utf8)
        let result = try await AirlocBinary.run(
            ["postal", "DE", "39167", "--config", home.file("airloc.conf").path],
            environment: AirlocBinary.environment(home: home.url, extra: ["AIRLOC_POSTAL_URL": double.baseURL]))
        #expect(result.status == status, "\(result)")
        #expect(result.stderr.contains(message), "\(result)")
    }

    @Test func offlineAnswersSurviveAFailingService() async throws {
        let double = try await HTTPDouble.start(faults: [#"{"path": "/us/90210", "status": 503}"#])
        defer { double.stop() }
        let result = try await Self.run(["postal", "US", "90210", "--online"], double: double)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Beverly Hills, California (CA)"))
        #expect(result.stderr.contains("Zippopotam.us") && result.stderr.contains("showing the offline answer"))
    }

    @Test func countriesListTheirFormatAndSource() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let json = try Self.json(try await Self.run(["postal", "--countries", "--json"], double: double))
        let rows = try #require(json["countries"] as? [[String: Any]])
        let us = try #require(rows.first { $0["code"] as? String == "US" })
        #expect(us["answered"] as? String == "offline+online" && us["range"] as? String == "00501–99950")
        #expect(rows.first { $0["code"] as? String == "DE" }?["answered"] as? String == "offline+online")
        #expect(rows.first { $0["code"] as? String == "JP" }?["answered"] as? String == "online")
    }

    @Test func airContinuesIntoTheReportForTheFirstPlace() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let json = try Self.json(try await Self.run(["postal", "US", "90210", "--air", "--json"], double: double))
        let report = try #require(json["report"] as? [String: Any])
        #expect((report["air_quality"] as? [String: Any])?["us_aqi"] as? Int == 41)
        #expect((report["sent_coordinate"] as? [String: Any])?["latitude"] as? Double == 34.09)
    }

    /// A full British postcode: the offline data has only its area, Zippopotam.us its
    /// outward code, which is finer, so the service answers; offline (or with the service
    /// down) the area answers, and says so.
    @Test func aFullPostcodeIsAnsweredAtTheFinestGranularityAvailable() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let online = try Self.json(try await Self.run(["postal", "GB", "sw1a", "1aa", "--json"], double: double))
        #expect(online["granularity"] is NSNull && online["online_code"] as? String == "SW1A")
        let place = try #require((online["places"] as? [[String: Any]])?.first)
        #expect(place["place_name"] as? String == "London" && place["source"] as? String == "online")
        #expect(try double.requests().map(\.path) == ["/gb/SW1A"])
        let offline = try await Self.run(["postal", "GB", "SW1A 1AA", "--offline"], double: double)
        #expect(offline.status == 0, "\(offline)")
        #expect(offline.stdout.contains("answered for the area SW"), "\(offline)")
        // `air --postal` takes what `postal` takes: a country of several words, a code with a space.
        for postal in ["United States 90210", "NL 1011 AB"] {
            let air = try Self.json(try await Self.run(["air", "--postal", postal, "--json"], double: double))
            #expect((air["air_quality"] as? [String: Any])?["us_aqi"] is Int, "\(postal): \(air)")
        }
    }
}
