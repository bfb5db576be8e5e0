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
    public static let serviceName = "Open-Meteo air quality"
    public static let defaultBaseURL = ServiceURL(string: "https://air-quality-api.open-meteo.com")!
    public static let attribution = "Open-Meteo.com (CAMS)"

    public var baseURL: ServiceURL
    public var client: HTTPClient

    public init(baseURL: ServiceURL = OpenMeteoAirQuality.defaultBaseURL, client: HTTPClient = HTTPClient()) {
        self.baseURL = baseURL
        self.client = client
    }

    /// Air quality and pollen in one request (seed 002 makes two; one is enough).
    static let currentVariables: [String] =
        ["us_aqi"] + Pollutant.allCases.map(\.rawValue) + Pollutant.allCases.map(\.subIndexVariable)
        + PollenSpecies.allCases.map(\.rawValue)

    /// The exact request URL for `coordinate` (exposed for tests and `--verbose`).
    public func requestURL(for coordinate: Coordinate) -> URL {
        baseURL.url(
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

    public func current(at coordinate: Coordinate) async throws(AirQualityError) -> AirQualityReading {
        let response: Response
        do {
            response = try await client.getJSON(
                Response.self, from: requestURL(for: coordinate), service: Self.serviceName)
        } catch {
            throw .web(error)
        }
        guard let current = response.current else {
            throw .noData(reason: "the answer has no `current` block")
        }
        let aqi = (current.values["us_aqi"] ?? nil).flatMap { $0.isFinite ? Int($0.rounded()) : nil }
        var concentrations: [Pollutant: Double] = [:]
        var subIndices: [Pollutant: Int] = [:]
        for pollutant in Pollutant.allCases {
            if let value = current.values[pollutant.rawValue] ?? nil, value.isFinite {
                concentrations[pollutant] = value
            }
            if let value = current.values[pollutant.subIndexVariable] ?? nil, value.isFinite {
                subIndices[pollutant] = Int(value.rounded())
            }
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
                usAQI: aqi, concentrations: concentrations, subIndices: subIndices, time: current.time,
                timezone: response.timezone ?? "GMT", gridCoordinate: grid)
        else { throw .noData(reason: "no US AQI and no pollutant concentrations for this location and time") }
        reading.pollen = PollenReading(species: pollen)
        return reading
    }

    /// The documented response shape; only what airloc reads, every field optional
    /// except `current.time` because the server omits what it does not have.
    struct Response: Decodable {
        var latitude: Double?
        var longitude: Double?
        var timezone: String?
        var current: Current?

        struct Current: Decodable {
            var time: String
            var values: [String: Double?]

            private struct Key: CodingKey {
                var stringValue: String
                var intValue: Int? { nil }
                init(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Key.self)
                time = try container.decode(String.self, forKey: Key(stringValue: "time"))
                var values: [String: Double?] = [:]
                for key in container.allKeys where key.stringValue != "time" && key.stringValue != "interval" {
                    values[key.stringValue] = try container.decodeIfPresent(Double.self, forKey: key)
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

    public var description: String {
        switch self {
        case .web(let error): return error.description
        case .noData(let reason): return "\(OpenMeteoAirQuality.serviceName) has no data here: \(reason)"
        }
    }

    public var isRetryable: Bool {
        if case .web(let error) = self { return error.isRetryable }
        return false
    }
}
