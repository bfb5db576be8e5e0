import Foundation
import Gazetteer
import TestSupport
import Testing
import Web

/// What an online service says is made plain where it enters: a geocoding or postal
/// answer with control and escape bytes in every text field gives places without them
/// (a hostile or broken service cannot retitle, clear or recolour the user's terminal).
struct ServiceTextTests {
    /// An OSC title, a colour, a bell, a C1 control and a DEL, around every text.
    static func hostile(_ text: String) -> String {
        "\u{1B}]0;owned\u{07}\u{1B}[31m\(text)\u{9B}2J\u{7F}\u{1B}[0m"
    }

    static func json(_ object: Any) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) }
    }

    static func client(answering body: String) -> HTTPClient {
        let services = ScriptedServices(time: ManualTime(date: Date(timeIntervalSince1970: 1_796_000_000)))
        services.always("/v1/search", .body(200, body))
        services.always("/de/10115", .body(200, body))
        return HTTPClient(timeout: .seconds(5), transport: services, time: services.time)
    }

    @Test func geocodingPlacesCarryNoControlBytes() async throws {
        let body = Self.json([
            "results": [
                [
                    "id": 2_950_159, "name": Self.hostile("Berlin"), "latitude": 52.52, "longitude": 13.41,
                    "feature_code": Self.hostile("PPLC"), "country_code": Self.hostile("DE"),
                    "country": Self.hostile("Germany"), "admin1": Self.hostile("Land Berlin"),
                    "timezone": Self.hostile("Europe/Berlin"), "population": 3_426_354,
                ]
            ]
        ])
        let geocoding = OpenMeteoGeocoding(
            base: ServiceURL(string: "http://services.test")!, client: Self.client(answering: body))
        let places = try await geocoding.search(name: "Berlin")
        let place = try #require(places.first)
        for text in [place.name, place.admin1, place.country, place.countryCode, place.timezone, place.featureCode] {
            #expect(!Self.hasControl(text), "\(text.debugDescription)")
        }
        #expect(place.name.contains("Berlin") && place.timezone.contains("Europe/Berlin"))
    }

    @Test func postalPlacesCarryNoControlBytes() async throws {
        let body = Self.json([
            "post code": Self.hostile("10115"), "country": "Germany", "country abbreviation": "DE",
            "places": [
                [
                    "place name": Self.hostile("Berlin"), "longitude": "13.3872", "latitude": "52.5323",
                    "state": Self.hostile("Berlin"), "state abbreviation": Self.hostile("BE"),
                ]
            ],
        ])
        let zippopotam = Zippopotam(
            base: ServiceURL(string: "http://services.test")!, client: Self.client(answering: body))
        let places = try await zippopotam.places(countryCode: "de", code: "10115")
        let place = try #require(places.first)
        for text in [place.code, place.placeName, place.admin1, place.admin1Code] {
            #expect(!Self.hasControl(text), "\(text.debugDescription)")
        }
        #expect(place.placeName.contains("Berlin"))
    }
}
