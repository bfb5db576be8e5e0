import Foundation
import Geo
import Platform
import Web

/// Zippopotam.us (`GET /{country}/{code}`), the online postal-code lookup.
///
/// Contract: the caller passes a code already checked by ``PostalCode/check(_:regex:country:)``
/// and reduced with ``PostalCode/outward(_:country:)``; it goes out as one
/// percent-encoded path segment, the country as two lower-case letters, nothing else.
/// A 404 (body `{}`) is an empty list: the service does not know the code. Latitude and
/// longitude arrive as strings; a place without a valid coordinate is dropped.
public struct Zippopotam: Sendable {
    /// The service's name in messages.
    public static let serviceName = "Zippopotam.us"
    /// The countries the service documents (reference/postal-and-ip.md).
    public static let countries: Set<String> = [
        "AD", "AR", "AS", "AT", "AU", "BD", "BE", "BG", "BR", "CA", "CH", "CZ", "DE", "DK", "DO", "ES", "FI", "FO",
        "FR", "GB", "GF", "GG", "GL", "GP", "GT", "GU", "GY", "HR", "HU", "IM", "IN", "IS", "IT", "JE", "JP", "LI",
        "LK", "LT", "LU", "MC", "MD", "MH", "MK", "MP", "MQ", "MX", "MY", "NL", "NO", "NZ", "PH", "PK", "PL", "PM",
        "PR", "PT", "RE", "RU", "SE", "SI", "SJ", "SK", "SM", "TH", "TR", "US", "VA", "VI", "YT", "ZA",
    ]

    /// Where the service is (a local double in tests).
    public var base: ServiceURL
    /// The client requests go through.
    public var client: HTTPClient

    /// The service at `base`, through `client`.
    public init(base: ServiceURL, client: HTTPClient) {
        self.base = base
        self.client = client
    }

    /// The request for a checked code.
    public func url(countryCode: String, code: String) -> URL {
        base.url(path: "/\(countryCode.lowercased())/\(ServiceURL.encode(code))")
    }

    /// The places of `code` in `countryCode` (empty when the service knows none).
    public func places(countryCode: String, code: String) async throws(WebError) -> [PostalPlace] {
        let (status, body) = try await client.get(
            url(countryCode: countryCode, code: code), service: Self.serviceName)
        if status == 404 { return [] }
        try HTTPClient.check(status: status, body: body, service: Self.serviceName)
        return try Self.places(in: body, countryCode: countryCode, code: code)
    }

    /// The places an answer `body` for `code` in `countryCode` names: those with a
    /// coordinate on Earth, their text made plain (no control or escape byte).
    package static func places(in body: Data, countryCode: String, code: String) throws(WebError) -> [PostalPlace] {
        let response: Response
        do {
            response = try JSONDecoder().decode(Response.self, from: body)
        } catch {
            throw .undecodable(service: Self.serviceName, reason: HTTPClient.describe(decodingError: error, body: body))
        }
        return (response.places ?? []).compactMap { place in
            guard let lat = place.latitude.flatMap(Double.init), let lon = place.longitude.flatMap(Double.init),
                let coordinate = try? Coordinate(latitude: lat, longitude: lon)
            else { return nil }
            // Service text is made plain where it enters (no control or escape byte).
            let plain = { (text: String?) in TerminalText.plain(text ?? "") }
            return PostalPlace(
                countryCode: countryCode.uppercased(), code: TerminalText.plain(response.postCode ?? code),
                placeName: plain(place.placeName), admin1: plain(place.state),
                admin1Code: plain(place.stateAbbreviation),
                coordinate: coordinate, source: .online)
        }
    }

    struct Response: Decodable {
        var postCode: String?
        var places: [Place]?

        enum CodingKeys: String, CodingKey {
            case postCode = "post code"
            case places
        }

        struct Place: Decodable {
            var placeName: String?
            var longitude: String?
            var latitude: String?
            var state: String?
            var stateAbbreviation: String?

            enum CodingKeys: String, CodingKey {
                case placeName = "place name"
                case longitude, latitude, state
                case stateAbbreviation = "state abbreviation"
            }
        }
    }
}
