import AirQuality
import Foundation
import Gazetteer
import Geo
import Settings
import Web

/// `airloc search --json` (schema airloc.search/1, docs/json-schema.md).
public struct SearchJSON: Encodable {
    /// The document's schema.
    public var schema = "airloc.search/1"
    /// The query as typed.
    public var query: String
    /// The places found, best first.
    public var results: [SearchResultJSON]
    /// Why `results` is empty: "query_too_short" or "no_results"; null otherwise.
    public var reason: String?
    /// What the online search did, when it was asked.
    public var online: OnlineSearchJSON?
    /// Set when the search could not be done (a query too short, the online search failed
    /// with nothing offline); null for results and for a plain "no results".
    public var error: JSONError?

    /// A search document.
    public init(query: String, results: [SearchResultJSON], reason: String?, online: OnlineSearchJSON?) {
        self.query = query
        self.results = results
        self.reason = reason
        self.online = online
    }
}

/// One result: the fields of an Open-Meteo geocoding result, plus how it matched.
public struct SearchResultJSON: Encodable {
    /// GeoNames' id.
    public var id: Int
    /// The place's name.
    public var name: String
    /// Degrees north.
    public var latitude: Double
    /// Degrees east.
    public var longitude: Double
    /// GeoNames' feature code.
    public var featureCode: String
    /// ISO 3166 alpha-2.
    public var countryCode: String
    /// The country's name.
    public var country: String
    /// The admin-1 region.
    public var admin1: String
    /// Its IANA time zone.
    public var timezone: String
    /// Its population.
    public var population: Int
    /// "Berlin, Berlin, Germany".
    public var displayName: String
    /// The name that matched, as written (an alternate name such as "München").
    public var matchedName: String?
    /// "exact", "prefix", "typo" or "online".
    public var match: String
    /// Typos forgiven to match it.
    public var typos: Int
    /// The built-in data or Open-Meteo geocoding.
    public var source: AnswerSource
    /// From the point searched near, km.
    public var distanceKm: Double?
    /// Its UTC offset now.
    public var utcOffset: String?
    /// The time there now.
    public var localTime: String?

    /// A result.
    public init(place: Place, match: String, typos: Int, matchedName: String?, source: AnswerSource, distance: Double?)
    {
        id = place.id
        name = place.name
        latitude = place.coordinate.latitude
        longitude = place.coordinate.longitude
        featureCode = place.featureCode
        countryCode = place.countryCode
        country = place.country
        admin1 = place.admin1
        timezone = place.timezone
        population = place.population
        displayName = place.displayName
        self.matchedName = matchedName
        self.match = match
        self.typos = typos
        self.source = source
        distanceKm = distance.map { ($0 / 100).rounded() / 10 }
        let local = LocalTime(timezone: place.timezone)
        utcOffset = local?.offset
        localTime = local?.localDateTime
    }

    /// The result of an offline search.
    public init(_ result: SearchResult, source: AnswerSource) {
        let (match, typos): (String, Int) =
            switch result.match {
            case .exact: ("exact", 0)
            case .prefix: ("prefix", 0)
            case .typo(let n): ("typo", n)
            }
        self.init(
            place: result.place, match: match, typos: typos, matchedName: result.matchedName, source: source,
            distance: result.distance)
    }
}

/// What happened online: "ok", "skipped", or the failure.
public struct OnlineSearchJSON: Encodable {
    /// How it went.
    public var status: OnlineSearchStatus
    /// Why it failed.
    public var message: String?
    /// How many places it gave.
    public var results: Int
}

/// How the online half of a search went: `ok` (it answered, maybe with no place),
/// `unavailable` (worth retrying: the network, a timeout, a 5xx), `failed` (retrying cannot
/// help: a refusal, an answer that cannot be read).
public enum OnlineSearchStatus: String, Sendable, Codable, CustomStringConvertible {
    case ok
    case unavailable
    case failed

    /// The word, as the JSON has it.
    public var description: String { rawValue }
}

/// The online half of `airloc search`: Open-Meteo geocoding, merged by GeoNames id.
public enum OnlineSearch {
    /// What an online search gave.
    public struct Outcome {
        /// Its places.
        public var results: [SearchResultJSON]
        /// What the document says of it.
        public var json: OnlineSearchJSON
    }

    /// Open-Meteo geocoding at the configured URL, with the configured timeout (also the
    /// picker's online fallback).
    public static func places(_ query: String, count: Int, countryCode: String?, configuration: Settings)
        async throws(WebError) -> [Place]
    {
        // One back-off for all of Open-Meteo: after a 429 from any of its APIs (air quality,
        // archive, geocoding) nothing is sent to it until the limit resets.
        let gate = OpenMeteoGate(cache: ResponseCache(directory: configuration.directories.cache))
        let service = OpenMeteoGeocoding.serviceName
        if let backoff = gate.closed(at: Date()) {
            throw .rateLimited(service: service, reason: backoff.explanation)
        }
        let geocoder = OpenMeteoGeocoding(
            base: configuration.geocodingURL,
            client: HTTPClient(timeout: Settings.milliseconds(configuration.serviceTimeout)))
        do {
            return try await geocoder.search(name: query, count: count, countryCode: countryCode)
        } catch {
            gate.record(error, at: Date())
            throw error
        }
    }

    /// The online results for `query` as search results (or what went wrong), for the
    /// `online` part of the document.
    public static func run(
        query: String, limit: Int, countryCode: String?, near: Coordinate?, configuration: Settings
    ) async -> Outcome {
        do {
            let places = try await places(
                query, count: limit, countryCode: countryCode, configuration: configuration)
            let results = places.map { place in
                SearchResultJSON(
                    place: place, match: "online", typos: 0, matchedName: nil, source: .online,
                    distance: near.map { place.coordinate.distance(to: $0) })
            }
            return Outcome(results: results, json: OnlineSearchJSON(status: .ok, message: nil, results: places.count))
        } catch {
            let status: OnlineSearchStatus = error.isRetryable ? .unavailable : .failed
            return Outcome(results: [], json: OnlineSearchJSON(status: status, message: error.description, results: 0))
        }
    }

    /// Offline results first (they are ranked), then online ones whose GeoNames id the
    /// offline answer does not already hold.
    public static func merge(offline: [SearchResultJSON], online: [SearchResultJSON], limit: Int) -> [SearchResultJSON]
    {
        var seen = Set(offline.map(\.id))
        var merged = offline
        for result in online where seen.insert(result.id).inserted { merged.append(result) }
        return Array(merged.prefix(max(limit, offline.count)))
    }
}
