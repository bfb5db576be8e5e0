import Foundation
import Geo
import Web

/// Client for Open-Meteo's air-quality API (`/v1/air-quality`, CAMS data).
///
/// Contract: asks for the current US AQI, its sub-indices and the six pollutants in one
/// request; returns a reading or an ``AirQualityError`` that says which service failed
/// and why. The coordinate is sent exactly as given: rounding for privacy is the
/// caller's decision (see ``AirReportBuilder``).
public struct OpenMeteoAirQuality: Sendable {
    /// The service's name in messages.
    public static let serviceName = "Open-Meteo air quality"
    /// Open-Meteo's public endpoint.
    public static let defaultBaseURL = ServiceURL(string: "https://air-quality-api.open-meteo.com")!
    /// What the card and the JSON credit.
    public static let attribution = "Open-Meteo.com, CAMS"

    /// Where the service is, with its API key.
    public var endpoint: OpenMeteoEndpoint
    /// The client requests go through.
    public var client: HTTPClient

    /// The service at `baseURL` (public, no key).
    public init(baseURL: ServiceURL = OpenMeteoAirQuality.defaultBaseURL, client: HTTPClient = HTTPClient()) {
        self.init(
            endpoint: OpenMeteoEndpoint(base: baseURL, publicBase: Self.defaultBaseURL, apiKey: nil), client: client)
    }

    /// The service at `endpoint`.
    public init(endpoint: OpenMeteoEndpoint, client: HTTPClient = HTTPClient()) {
        self.endpoint = endpoint
        self.client = client
    }

    /// Air quality and pollen in one request (seed 002 makes two; one is enough).
    static let currentVariables: [String] =
        ["us_aqi"] + Pollutant.allCases.map(\.rawValue) + Pollutant.allCases.map(\.subIndexVariable)
        + PollenSpecies.allCases.map(\.rawValue) + ["european_aqi"]
        + Pollutant.allCases.compactMap(\.europeanSubIndexVariable)

    /// The exact request URL for `coordinate` (exposed for tests and `--verbose`).
    public func requestURL(for coordinate: Coordinate) -> URL {
        endpoint.url(
            path: "/v1/air-quality",
            query: [
                ("latitude", Self.format(coordinate.latitude)), ("longitude", Self.format(coordinate.longitude)),
                ("current", Self.currentVariables.joined(separator: ",")), ("timezone", "auto"),
            ])
    }

    static func format(_ degrees: Double) -> String {
        // Up to 5 decimals without float noise (52.52, not 52.520000000000003).
        var text = String(format: "%.5f", degrees)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// The current air quality and pollen at `coordinate`.
    public func current(at coordinate: Coordinate) async throws(AirQualityError) -> AirQualityReading {
        let body: Data
        do {
            let (status, data) = try await client.get(requestURL(for: coordinate), service: Self.serviceName)
            try HTTPClient.check(status: status, body: data, service: Self.serviceName)
            body = data
        } catch {
            throw .web(error)
        }
        return try Self.reading(from: body)
    }

    /// Reads a 2xx answer body (fresh, or from the cache) into a reading.
    public static func reading(from body: Data) throws(AirQualityError) -> AirQualityReading {
        let response: Response
        do {
            response = try JSONDecoder().decode(Response.self, from: body)
        } catch {
            throw .web(
                .undecodable(service: serviceName, reason: HTTPClient.describe(decodingError: error, body: body)))
        }
        guard let current = response.current else {
            throw .noData(reason: "the answer has no `current` block")
        }
        func integer(_ name: String) -> Int? { Self.index(current.values[name] ?? nil) }
        var concentrations: [Pollutant: Double] = [:]
        var subIndices: [Pollutant: Int] = [:]
        var european: [Pollutant: Int] = [:]
        for pollutant in Pollutant.allCases {
            if let value = current.values[pollutant.rawValue] ?? nil, Pollutant.possible.contains(value) {
                concentrations[pollutant] = value
            }
            subIndices[pollutant] = integer(pollutant.subIndexVariable)
            european[pollutant] = pollutant.europeanSubIndexVariable.flatMap(integer)
        }
        let grid = response.latitude.flatMap { lat in
            response.longitude.flatMap { lon in try? Coordinate(latitude: lat, longitude: lon) }
        }
        var pollen: [PollenSpecies: Double] = [:]
        for species in PollenSpecies.allCases {
            if let value = current.values[species.rawValue] ?? nil, value.isFinite, value >= 0 {
                pollen[species] = value
            }
        }
        // A missing index is computed from the concentrations (EPAIndex) and marked so.
        guard
            var reading = AirQualityReading.completing(
                usAQI: integer("us_aqi"), concentrations: concentrations, subIndices: subIndices,
                time: current.time, timezone: response.timezone ?? "GMT", gridCoordinate: grid)
        else { throw .noData(reason: "no US AQI and no pollutant concentrations for this location and time") }
        reading.pollen = PollenReading(species: pollen)
        reading.setEuropeanAQI(service: integer("european_aqi"))
        reading.europeanSubIndices = european
        reading.interval = current.interval ?? 3600
        reading.dataTime = Self.instant(current.time, utcOffsetSeconds: response.utcOffsetSeconds ?? 0)
        return reading
    }

    /// An index value as the service sent it (a US or European AQI, a sub-index), or nil
    /// when it is none: not a number, negative, or beyond any index (a broken or hostile
    /// answer once sent 6.4e65, which Int() cannot hold; fuzzing found it).
    static func index(_ value: Double?) -> Int? {
        guard let value, value.isFinite, value >= 0, value < 100_000 else { return nil }
        return Int(value.rounded())
    }

    /// "2024-02-21T16:00" local at `utcOffsetSeconds` → the instant.
    static func instant(_ text: String, utcOffsetSeconds: Int) -> Date? {
        UTCTime.parse(text)?.addingTimeInterval(-Double(utcOffsetSeconds))
    }

    /// The documented response shape; only what airloc reads, every field optional
    /// except `current.time` because the server omits what it does not have.
    struct Response: Decodable {
        var latitude: Double?
        var longitude: Double?
        var timezone: String?
        var utcOffsetSeconds: Int?
        var current: Current?

        enum CodingKeys: String, CodingKey {
            case latitude, longitude, timezone, current
            case utcOffsetSeconds = "utc_offset_seconds"
        }

        struct Current: Decodable {
            var time: String
            var interval: Int?
            var values: [String: Double?]

            private typealias Key = VariableName

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Key.self)
                time = try container.decode(String.self, forKey: Key(stringValue: "time"))
                interval = try container.decodeIfPresent(Int.self, forKey: Key(stringValue: "interval"))
                var values: [String: Double?] = [:]
                for key in container.allKeys where key.stringValue != "time" && key.stringValue != "interval" {
                    // One unreadable value (a string where a number belongs) costs that value,
                    // not the whole answer: garbage pollen must not hide the air quality.
                    values[key.stringValue] = (try? container.decodeIfPresent(Double.self, forKey: key)) ?? nil
                }
                self.values = values
            }
        }
    }
}

/// Why no air-quality reading could be produced.
public enum AirQualityError: Error, Sendable, Equatable, CustomStringConvertible {
    case web(WebError)
    /// The service answered but had no usable data for this place and time.
    case noData(reason: String)

    /// What failed, naming the service.
    public var description: String {
        switch self {
        case .web(let error): return error.description
        case .noData(let reason): return "\(OpenMeteoAirQuality.serviceName) has no data here: \(reason)"
        }
    }

    /// True for a failure a later attempt may cure.
    public var isRetryable: Bool {
        if case .web(let error) = self { return error.isRetryable }
        return false
    }
}

/// A key of an Open-Meteo block whose variables are whatever was asked for (`current`,
/// `hourly`): decoded by name, one at a time.
struct VariableName: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
