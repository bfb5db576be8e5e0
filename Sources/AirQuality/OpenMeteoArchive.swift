import Foundation
import Geo
import Web

/// Client for Open-Meteo's historical weather API (`/v1/archive`, ERA5): daily mean
/// temperatures for the climate trend.
///
/// Contract: one request per date range, `daily=temperature_2m_mean` in °C with local
/// calendar days (`timezone=auto`); days the archive does not have yet come back as
/// nil, never as an error or as 0. The coordinate is sent as given (the caller rounds).
public struct OpenMeteoArchive: Sendable {
    /// The service's name in messages.
    public static let serviceName = "Open-Meteo archive"
    /// Open-Meteo's public archive endpoint.
    public static let defaultBaseURL = ServiceURL(string: "https://archive-api.open-meteo.com")!
    /// How many days back the recent window asks for: the archive lags about 5 days, so
    /// 15 days hold the latest 7 with data even when it lags a week.
    public static let recentWindowDays = 15

    /// Where the service is, with its API key.
    public var endpoint: OpenMeteoEndpoint

    /// The archive at `endpoint`.
    public init(endpoint: OpenMeteoEndpoint) { self.endpoint = endpoint }

    /// The request for daily mean temperatures at `coordinate` from `start` to `end`.
    public func requestURL(for coordinate: Coordinate, from start: String, to end: String) -> URL {
        endpoint.url(
            path: "/v1/archive",
            query: [
                ("latitude", OpenMeteoAirQuality.format(coordinate.latitude)),
                ("longitude", OpenMeteoAirQuality.format(coordinate.longitude)),
                ("start_date", start), ("end_date", end), ("daily", "temperature_2m_mean"), ("timezone", "auto"),
            ])
    }

    /// The URL of the recent window ending yesterday (UTC) before `now`.
    public func recentURL(for coordinate: Coordinate, now: Date) -> URL {
        let end = now.addingTimeInterval(-86_400)
        let start = now.addingTimeInterval(-86_400 * Double(Self.recentWindowDays))
        return requestURL(for: coordinate, from: Self.day(start), to: Self.day(end))
    }

    /// The URL of the 30-year baseline series.
    public func baselineURL(for coordinate: Coordinate) -> URL {
        requestURL(for: coordinate, from: Climatology.firstDay, to: Climatology.lastDay)
    }

    /// One request for both on a cold cache: the baseline's first day through the end of
    /// the recent window (yesterday, UTC, before `now`).
    public func baselineAndRecentURL(for coordinate: Coordinate, now: Date) -> URL {
        requestURL(for: coordinate, from: Climatology.firstDay, to: Self.day(now.addingTimeInterval(-86_400)))
    }

    /// The first day of the recent window before `now`.
    public static func recentStart(now: Date) -> String {
        day(now.addingTimeInterval(-86_400 * Double(recentWindowDays)))
    }

    /// A daily series as the archive's own answer body (what the cache keeps).
    public static func body(for series: [(date: String, meanCelsius: Double?)]) -> Data {
        let response = Response(
            daily: Response.Daily(time: series.map(\.date), temperature_2m_mean: series.map(\.meanCelsius)))
        return (try? JSONEncoder().encode(response)) ?? Data()
    }

    /// "2026-11-28" (UTC).
    static func day(_ date: Date) -> String {
        UTCTime(date).text(.day)
    }

    /// Reads a 2xx answer body into (day, mean °C or nil) pairs.
    public static func series(from body: Data) throws(WebError) -> [(date: String, meanCelsius: Double?)] {
        let response: Response
        do {
            response = try JSONDecoder().decode(Response.self, from: body)
        } catch {
            throw .undecodable(service: serviceName, reason: HTTPClient.describe(decodingError: error, body: body))
        }
        guard let daily = response.daily else { return [] }
        guard daily.time.count == daily.temperature_2m_mean.count else {
            throw .undecodable(service: serviceName, reason: "daily arrays of different lengths")
        }
        return zip(daily.time, daily.temperature_2m_mean).map { ($0, $1) }
    }

    struct Response: Codable {
        var daily: Daily?

        struct Daily: Codable {
            var time: [String]
            var temperature_2m_mean: [Double?]
        }
    }
}

/// Where an Open-Meteo API is reached and what goes with each request.
///
/// Contract: with an API key and the public host, requests go to the commercial
/// `customer-` host with `apikey`; the key is sent only to a `customer-` host (never to
/// a free host, which would redirect, nor to a proxy or test double), so configuring a
/// key cannot leak it to a third party.
public struct OpenMeteoEndpoint: Sendable {
    /// The base URL requests go to.
    public var base: ServiceURL
    var apiKey: String?

    /// `base` as configured and the public default it replaces.
    public init(base: ServiceURL, publicBase: ServiceURL, apiKey: String?) {
        let key = apiKey.flatMap { $0.isEmpty ? nil : $0 }
        if key != nil, base == publicBase, let host = base.base.host,
            let customer = ServiceURL(string: "https://customer-\(host)")
        {
            self.base = customer
        } else {
            self.base = base
        }
        let host = self.base.base.host ?? ""
        self.apiKey = host.hasPrefix("customer-") && self.base.base.scheme == "https" ? key : nil
    }

    /// True when requests carry the API key.
    public var sendsAPIKey: Bool { apiKey != nil }

    /// `path` with `query`, and the API key where it may be sent.
    public func url(path: String, query: [(String, String)]) -> URL {
        base.url(path: path, query: query + (apiKey.map { [("apikey", $0)] } ?? []))
    }
}
