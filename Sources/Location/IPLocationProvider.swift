import Foundation
import Geo
import Web

/// Asks an IP-geolocation service where the device's public address is.
///
/// Contract: the answer is city level at best (sometimes a country centroid far off), so
/// the fix carries a ``cityLevelAccuracy`` radius in metres and says it is an IP guess —
/// it is never presented as a precise point. The request reveals the device's public
/// address to a third party: callers use this provider only when the user put it in the
/// provider chain and authorized sensing. Nothing but the request line and a generic
/// User-Agent is sent.
public struct IPLocationProvider: LocationProvider {
    /// 25 km: GeoClue's CITY level and the typical error of these services.
    public static let cityLevelAccuracy = 25_000.0

    /// The provider's name in the chain.
    public let name = "ip"
    /// It locates the device (by its address): it needs authorization.
    public let senses = true
    /// Which IP service.
    public var service: IPService
    /// Where it is (a local double in tests).
    public var baseURL: ServiceURL
    /// An address changes rarely: asked again every ten minutes.
    public var refreshInterval: Double? { 600 }

    /// The provider of `service` (at `baseURL`, or its own).
    public init(service: IPService, baseURL: ServiceURL? = nil) {
        self.service = service
        self.baseURL = baseURL ?? ServiceURL(string: service.defaultBaseURL)!
    }

    /// The city-level position the service gives.
    public func currentFix(timeout: Duration) async throws -> Fix {
        try await locate(timeout: timeout).fix
    }

    /// The fix and what the service said about the place.
    public func locate(timeout: Duration) async throws(IPLocationError) -> (fix: Fix, answer: IPService.Answer) {
        let client = HTTPClient(timeout: timeout)
        let url = baseURL.url(path: service.path, query: [])
        let body: Data
        do {
            let (status, data) = try await client.get(url, service: service.rawValue)
            try HTTPClient.check(status: status, body: data, service: service.rawValue)
            body = data
        } catch {
            throw .web(error)
        }
        let answer = try service.parse(body)
        let fix = Fix(
            coordinate: answer.coordinate, source: .ip, time: Date(),
            horizontalAccuracy: Self.cityLevelAccuracy, accuracySource: "IP address (city level)",
            receivedAt: Date())
        return (fix, answer)
    }
}
