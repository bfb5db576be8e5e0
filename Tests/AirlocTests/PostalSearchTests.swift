import Foundation
import Geo
import Platform
import Settings
import TestSupport
import Testing
import Web

@testable import Airloc
@testable import Gazetteer

/// Postal codes as people write them, against the shipped offline data: every spelling
/// a country uses finds the code, answered at the granularity the data has, and said so.
@Suite struct PostalSearchTests {
    static let gazetteer = Result { try Gazetteer(path: PackagePaths.file("data/gazetteer.bin").path) }

    /// A transport that fails the test if anything is sent: these answers are offline.
    struct NoNetwork: HTTPTransport {
        func get(_ url: URL, service: String, timeout: Duration) async throws(WebError) -> (status: Int, body: Data) {
            Issue.record("sent \(url.absoluteString)")
            throw .unreachable(service: service, reason: "no network in this test")
        }
    }

    func search(_ country: String, _ code: String) async throws(PostalSearchError) -> PostalAnswer {
        let gazetteer = try! Self.gazetteer.get()
        let settings = Settings(directories: XDGDirectories(environment: ["HOME": "/nonexistent"]))
        return try await PostalSearch.places(
            country: country, code: code, sources: .offlineOnly, gazetteer: gazetteer, settings: settings,
            transport: NoNetwork())
    }

    @Test(
        arguments: [
            // (country, as typed, a place it must answer with, what the answer covers)
            ("NL", "1011", "Amsterdam", nil),
            ("NL", "1011 AB", "Amsterdam", "4-digit district 1011"),
            ("NL", "1011ab", "Amsterdam", "4-digit district 1011"),
            ("GB", "SW1A 1AA", "London South West", "area SW"),
            ("GB", "sw1a1aa", "London South West", "area SW"),
            ("CZ", "100 00", "Malešice", nil),
            ("CZ", "10000", "Malešice", nil),
            ("SK", "01301", "Teplička nad Váhom", nil),
            ("SK", "013 01", "Teplička nad Váhom", nil),
            ("GG", "GY1 3AB", "St Peter Port", "outward code GY1"),
            ("JE", "je2 3aa", "St Helier", nil),
            ("IM", "IM3 1AA", "Onchan", nil),
            ("EC", "010101", "Azuay", nil),
            ("PY", "031701", "Santa Elena", nil),
            ("SO", "10001", "Garowe", nil),
            ("MH", "96960", "Majuro", nil),
            ("MH", "96960-1234", "Majuro", "ZIP code 96960"),
            ("MN", "16000", "Bayangol", nil),
            ("US", "90210-1234", "Beverly Hills", "ZIP code 90210"),
            ("United States", " 90210 ", "Beverly Hills", nil),
        ] as [(String, String, String, String?)])
    func everySpellingACountryUsesIsFound(country: String, typed: String, place: String, granularity: String?)
        async throws
    {
        let answer = try await search(country, typed)
        #expect(answer.places.contains { $0.placeName == place }, "\(answer.places.map(\.placeName))")
        #expect(answer.lookup.granularity == granularity)
        #expect(answer.places.allSatisfy { $0.source == .offline })
    }

    /// What the data does not hold still has to have the country's form; one that cannot
    /// exist says what the form is.
    @Test(arguments: [("NL", "99999"), ("CZ", "1000"), ("US", "9021"), ("GB", "12345")])
    func impossibleCodesAreStillRefused(country: String, typed: String) async {
        do {
            let answer = try await search(country, typed)
            Issue.record("answered \(answer.places.map(\.placeName))")
        } catch {
            guard case .badCode(let problem, let named, let format) = error else {
                return #expect(Bool(false), "\(error)")
            }
            let message = PostalLookup.explain(problem, country: named, format: format)
            #expect(named == country && message.contains("not a valid \(country) postal code"), "\(message)")
        }
    }

    /// A code of the data's shape that the data does not hold is a miss, not a bad code.
    @Test func aWellFormedMissIsNoPlace() async {
        do {
            _ = try await search("NL", "1000")
            Issue.record("NL 1000 does not exist")
        } catch {
            guard case .noPlace = error else { return #expect(Bool(false), "\(error)") }
        }
    }

    @Test func formsAreFinestFirstAndNeverRepeat() {
        let forms = PostalForm.forms(of: "SW1A 1AA", country: "GB", sample: "AB", spaced: true)
        #expect(forms.map(\.key) == ["SW1A 1AA", "SW1A1AA", "SW1A", "SW1A ", "SW"])
        #expect(forms.map(\.granularity) == [nil, nil, "outward code SW1A", "outward code SW1A", "area SW"])
        #expect(
            PostalForm.forms(of: "01301", country: "SK", sample: "013 01", spaced: true).map(\.key) == [
                "01301", "013 01",
            ])
        #expect(PostalForm.forms(of: "90 210", country: "US", sample: "00501", spaced: false).map(\.key) == ["90 210"])
        #expect(PostalCode.outward("100 00", country: "CZ") == "100 00")
        #expect(PostalCode.outward("10000", country: "CZ") == "100 00")
        #expect(PostalCode.outward("1011 AB", country: "NL") == "1011")
    }
}
