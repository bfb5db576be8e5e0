import Foundation
import TestSupport
import Testing

@testable import Gazetteer

/// Checking what a person types as a postal code, and the offline data.
@Suite struct PostalCodeTests {
    static let usRegex = #"^\d{5}(-\d{4})?$"#

    @Test(arguments: [
        (" 90210 ", "90210"), ("01949", "01949"), ("90210-1234", "90210-1234"), ("sw1a   1aa", "SW1A 1AA"),
        ("m2m 1c8", "M2M 1C8"),
    ])
    func normalisesAndKeepsLeadingZeros(typed: String, expected: String) {
        #expect(PostalCode.normalise(typed) == expected)
    }

    @Test(arguments: [
        ("../../etc/passwd", PostalCode.Problem.tooLong(16)), ("90210?x=1", .characters("?=")),
        ("90210#", .characters("#")),
        ("%2F", .characters("%")), ("90 210", .format), ("🙂", .characters("🙂")), ("", .empty), ("   ", .empty),
        (String(repeating: "9", count: 10_000), .tooLong(10_000)), ("9021", .format), ("ABCDE", .format),
        ("a/b", .characters("/")), ("1\u{0}2", .characters("\u{0}")),
    ])
    func impossibleCodesAreRefusedBeforeAnyRequest(typed: String, problem: PostalCode.Problem) {
        #expect(PostalCode.check(typed, regex: Self.usRegex, country: "US") == .failure(problem))
    }

    @Test func outwardCodesWhereOnlyThoseAreKnown() throws {
        let gb = #"^([A-Z]{1,2}[0-9][A-Z0-9]?) ?([0-9][A-Z]{2})$"#
        #expect(PostalCode.check("sw1a 1aa", regex: gb, country: "GB") == .success("SW1A 1AA"))
        #expect(PostalCode.check("SW1A", regex: gb, country: "GB") == .success("SW1A"))
        #expect(PostalCode.outward("SW1A 1AA", country: "GB") == "SW1A")
        #expect(PostalCode.outward("SW1A1AA", country: "GB") == "SW1A")
        #expect(PostalCode.outward("M2M 1C8", country: "CA") == "M2M")
        #expect(PostalCode.outward("90210-1234", country: "US") == "90210")
        #expect(PostalCode.outward("39167", country: "DE") == "39167")
    }

    @Test func formatsAreDescribedForPeople() {
        #expect(PostalCode.describe(format: "#####") == "5 digits")
        #expect(PostalCode.describe(format: "#####|#####-####") == "5 digits, or #####-####")
        #expect(PostalCode.describe(format: "###-####") == "like ###-#### (# a digit, @ a letter)")
        #expect(PostalCode.describe(format: "") == nil)
    }

    /// The reference's real answers come out of the shipped offline data within 5 km.
    @Test func shippedUSDataHasTheReferenceAnswers() throws {
        let gazetteer = try Gazetteer(path: PackagePaths.file("data/gazetteer.bin").path)
        let beverly = try #require(gazetteer.postalPlaces(countryCode: "US", code: "90210").first)
        #expect(beverly.placeName == "Beverly Hills" && beverly.admin1 == "California" && beverly.admin1Code == "CA")
        #expect(beverly.coordinate.distance(to: try .init(latitude: 34.0901, longitude: -118.4065)) < 5000)
        #expect(gazetteer.postalPlaces(countryCode: "us", code: "84321").first?.placeName == "Logan")
        #expect(gazetteer.postalPlaces(countryCode: "US", code: "01949").first?.placeName == "Middleton")
        #expect(gazetteer.postalPlaces(countryCode: "US", code: "1949").isEmpty, "a lost leading zero is another code")
        #expect(gazetteer.postalPlaces(countryCode: "FR", code: "99999").isEmpty)
        let warsaw = try #require(gazetteer.postalPlaces(countryCode: "PL", code: "00-001").first)
        #expect(warsaw.placeName == "Warszawa" && !warsaw.coordinateDerived)
        let berlin = try #require(gazetteer.postalPlaces(countryCode: "DE", code: "10117").first)
        #expect(berlin.coordinateDerived && berlin.admin1 == "Berlin")
        let format = try #require(gazetteer.postalFormat(countryCode: "US"))
        #expect(format.offlineCount > 40_000 && format.first == "00501" && format.last == "99950")
        #expect(format.regex == Self.usRegex)
    }

    /// Issue 17: unique and PO-box ZIP codes (PyPI `zipcodes`) are offline too, with what
    /// they address and the names the post also accepts; a code is counted once however
    /// many names it has.
    @Test func everyKindOfUSZIPCodeIsOffline() throws {
        let gazetteer = try Gazetteer(path: PackagePaths.file("data/gazetteer.bin").path)
        let arlington = try #require(gazetteer.postalPlaces(countryCode: "US", code: "22222").first)
        #expect(arlington.placeName == "Arlington" && arlington.admin1Code == "VA" && arlington.kind == .unique)
        let box = try #require(gazetteer.postalPlaces(countryCode: "US", code: "00604").first)
        #expect(box.placeName == "Aguadilla" && box.kind == .poBox)
        let hollywood = gazetteer.postalPlaces(countryCode: "US", code: "90028")
        #expect(hollywood.count == 1, "an accepted name is not another place: \(hollywood)")
        #expect(hollywood.first?.placeName == "Los Angeles" && hollywood.first?.kind == .standard)
        #expect(hollywood.first?.acceptableNames == ["Hollywood"])
        #expect(gazetteer.postalPlaces(countryCode: "US", code: "09001").first?.kind == .military)
        #expect(gazetteer.postalPlaces(countryCode: "DE", code: "10117").first?.kind == nil, "only US data says")
        let format = try #require(gazetteer.postalFormat(countryCode: "US"))
        #expect((42_800...43_000).contains(format.offlineCount), "codes, not names: \(format.offlineCount)")
        #expect(format.first == "00501" && format.last == "99950")
    }
}
