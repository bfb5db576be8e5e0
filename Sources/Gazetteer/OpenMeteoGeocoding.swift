import Foundation
import Geo
import Platform
import Web

/// Open-Meteo's geocoding API (`GET /v1/search`), the online complement of the
/// offline gazetteer: GeoNames' full data set, every feature class, more languages.
///
/// Contract: sends only the typed text (trimmed, at most 200 characters, percent-encoded
/// by ``ServiceURL``), the count and an optional country code — never a location. A
/// 200 answer without `results` is an empty list (how the service says "no match");
/// results missing id, name or a valid coordinate are dropped, not guessed; any other
/// field may be absent (the service omits zero and empty values). Errors are
/// ``WebError``s naming "Open-Meteo geocoding".
public struct OpenMeteoGeocoding: Sendable {
    /// The service's name in messages.
    public static let serviceName = "Open-Meteo geocoding"
    /// Where the service is (a local double in tests).
    public var base: ServiceURL
    /// The client requests go through.
    public var client: HTTPClient

    /// The service at `base`, through `client`.
    public init(base: ServiceURL, client: HTTPClient) {
        self.base = base
        self.client = client
    }

    /// The request for `name`; exposed so tests can assert what leaves the device.
    public func url(name: String, count: Int, countryCode: String?) -> URL {
        var query: [(String, String)] = [
            ("name", String(name.trimmingCharacters(in: .whitespacesAndNewlines).prefix(200))),
            ("count", String(max(1, min(count, 100)))), ("language", "en"), ("format", "json"),
        ]
        if let countryCode { query.append(("countryCode", countryCode)) }
        return base.url(path: "/v1/search", query: query)
    }

    /// Places named `name` (towns, cities and countries only), at most `count`.
    public func search(name: String, count: Int = 10, countryCode: String? = nil) async throws(WebError) -> [Place] {
        let (status, body) = try await client.get(
            url(name: name, count: count, countryCode: countryCode), service: Self.serviceName)
        try HTTPClient.check(status: status, body: body, service: Self.serviceName)
        return try Self.places(in: body)
    }

    /// The places an answer `body` names: those with an id, a name and a coordinate on
    /// Earth, their text made plain (no control or escape byte).
    package static func places(in body: Data) throws(WebError) -> [Place] {
        do {
            return (try JSONDecoder().decode(Response.self, from: body).results ?? []).compactMap(\.place)
        } catch {
            throw .undecodable(service: serviceName, reason: HTTPClient.describe(decodingError: error, body: body))
        }
    }

    struct Response: Decodable {
        var results: [Result]?
    }

    struct Result: Decodable {
        var id: Int?
        var name: String?
        var latitude: Double?
        var longitude: Double?
        var featureCode: String?
        var countryCode: String?
        var country: String?
        var admin1: String?
        var timezone: String?
        var population: Int?

        enum CodingKeys: String, CodingKey {
            case id, name, latitude, longitude, country, admin1, timezone, population
            case featureCode = "feature_code"
            case countryCode = "country_code"
        }

        var place: Place? {
            guard let id, let name, !name.isEmpty, let latitude, let longitude,
                let coordinate = try? Coordinate(latitude: latitude, longitude: longitude)
            else { return nil }
            // Service text is made plain where it enters: no control or escape byte of a
            // place name reaches a terminal, a JSON document or the logbook.
            let plain = { (text: String?) in TerminalText.plain(text ?? "") }
            return Place(
                id: id, name: plain(name), coordinate: coordinate, admin1: plain(admin1), country: plain(country),
                countryCode: plain(countryCode), timezone: plain(timezone), population: population ?? 0,
                featureCode: plain(featureCode))
        }
    }
}
