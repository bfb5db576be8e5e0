import Foundation
import Geo
import Platform
import Web

/// Seed 002's fetch-all: air quality (with pollen, one request) required, the climate
/// trend optional, fetched concurrently under one deadline, through the cache and the
/// rate-limit back-off.
///
/// Contract:
/// - Ends by `options.deadline` whatever the services do; each request's timeout is cut
///   to what is left, and 503s/timeouts are retried per `options.retry` inside it.
/// - A failed or slow climate part never hides the air quality; the result says what
///   became of each part.
/// - On a cold cache: two requests (air quality with pollen; one archive request for the
///   1991-2020 baseline and the recent days together); then none while the cache is current.
/// - The cache answers while its entry is current (air quality until the data's next
///   hour, the recent climate window 6 h, the 1991-2020 baseline a year) unless
///   `options.refresh`; when a fetch fails for a reason other than a rejected request,
///   an entry up to `options.maxStale` old is used instead, with a warning.
/// - After a 429 nothing is sent to Open-Meteo until the back-off it asked for ends
///   (recorded in the cache directory, so later runs honour it too).
/// - `coordinate` is sent as given: the caller has already rounded it for privacy.
public struct AirDataPipeline: Sendable {
    /// Where the services are and how the fetch behaves.
    public struct Options: Sendable {
        /// The air-quality service (with its API key, if any).
        public var airQuality: OpenMeteoEndpoint
        /// The archive service (the climate trend).
        public var archive: OpenMeteoEndpoint
        /// One request, connection to last byte.
        public var requestTimeout: Duration = .seconds(10)
        /// Everything, retries and pauses included.
        public var deadline: Duration = .seconds(15)
        /// What is retried (503s, timeouts) and how soon.
        public var retry = RetryPolicy()
        /// Where answers are cached (nil: not cached).
        public var cache: ResponseCache?
        /// How old a cached answer may be and still stand in for a failed fetch.
        public var maxStale: TimeInterval = 6 * 3600
        /// Ask the services even when the cache is current.
        public var refresh = false
        /// Fetch the climate trend too.
        public var climate = true

        /// The options for these services, with the documented defaults.
        public init(airQuality: OpenMeteoEndpoint, archive: OpenMeteoEndpoint) {
            self.airQuality = airQuality
            self.archive = archive
        }
    }

    /// How it fetches.
    public var options: Options
    /// What the requests travel over: the network, or a test's scripted services.
    public var transport: any HTTPTransport
    /// The clock the deadline, retry pauses, cache ages and back-off windows use.
    public var time: any TimeSource

    /// A pipeline over `transport` on `time` (the network and the system clock unless given).
    public init(
        options: Options, transport: any HTTPTransport = NetworkTransport(), time: any TimeSource = SystemTime()
    ) {
        self.options = options
        self.transport = transport
        self.time = time
    }

    /// Everything known about the air at `coordinate` (see the contract).
    public func fetch(at coordinate: Coordinate) async -> AirData {
        let start = time.date
        let deadline = time.now + options.deadline
        let backoff = OpenMeteoGate(cache: options.cache).closed(at: start)
        async let air = airPart(at: coordinate, now: start, deadline: deadline, backoff: backoff)
        async let climate =
            options.climate
            ? climatePart(at: coordinate, now: start, deadline: deadline, backoff: backoff)
            : ClimatePart(outcome: .notRequested, requests: 0)
        let (airResult, climateResult) = await (air, climate)
        var data = airResult
        data.climate = climateResult.outcome
        data.requests += climateResult.requests
        return data
    }

    static func key(_ coordinate: Coordinate, decimals: Int = 4) -> String {
        String(format: "%.\(decimals)f,%.\(decimals)f", coordinate.latitude, coordinate.longitude)
    }

    private func client() -> HTTPClient {
        HTTPClient(timeout: options.requestTimeout, transport: transport, time: time)
    }

    /// Sends one GET (with retries) and returns the 2xx body, recording a 429's back-off.
    private func body(_ url: URL, service: String, deadline: ContinuousClock.Instant, requests: inout Int)
        async throws(WebError) -> Data
    {
        do {
            return try await client().get(
                url, service: service, retrying: options.retry, deadline: deadline, attempts: &requests)
        } catch {
            OpenMeteoGate(cache: options.cache).record(error, at: time.date)
            throw error
        }
    }

    // MARK: Air quality

    private func airPart(
        at coordinate: Coordinate, now start: Date, deadline: ContinuousClock.Instant, backoff: RateLimitBackoff?
    ) async -> AirData {
        let key = "air-" + Self.key(coordinate)
        let cached = options.cache?.read(key)
        if !options.refresh, let cached, cached.isFresh(at: start) {
            if let reading = try? OpenMeteoAirQuality.reading(from: cached.body) {
                return AirData(air: .success(reading), airCachedAge: cached.age(at: start))
            }
            options.cache?.remove(key)
        }
        let service = OpenMeteoAirQuality.serviceName
        var requests = 0
        let failure: AirQualityError
        if let backoff {
            failure = .web(.rateLimited(service: service, reason: backoff.explanation))
        } else {
            let url = OpenMeteoAirQuality(endpoint: options.airQuality).requestURL(for: coordinate)
            do {
                let body = try await body(url, service: service, deadline: deadline, requests: &requests)
                let reading = try OpenMeteoAirQuality.reading(from: body)
                let validUntil = reading.nextUpdate ?? start.addingTimeInterval(900)
                options.cache?.write(key, .init(storedAt: start, validUntil: validUntil, body: body))
                return AirData(air: .success(reading), requests: requests)
            } catch let error as WebError {
                failure = .web(error)
            } catch let error as AirQualityError {
                failure = error
            } catch {
                failure = .noData(reason: String(describing: error))
            }
        }
        // A rejected request (4xx with a reason) is the user's to fix: no stale stand-in.
        if case .web(.rejected) = failure {
            return AirData(air: .failure(failure), requests: requests)
        }
        if let cached, cached.age(at: start) <= options.maxStale,
            let reading = try? OpenMeteoAirQuality.reading(from: cached.body)
        {
            let age = cached.age(at: start)
            let warning =
                "could not refresh the air quality (\(failure.description)); showing the answer from "
                + "\(formatAge(age)) ago"
            return AirData(
                air: .success(reading), airCachedAge: age, airIsStale: true, warnings: [warning], requests: requests)
        }
        return AirData(air: .failure(failure), requests: requests)
    }

    // MARK: Climate

    struct ClimatePart: Sendable {
        var outcome: ClimateOutcome
        var requests: Int
    }

    private func climatePart(
        at coordinate: Coordinate, now start: Date, deadline: ContinuousClock.Instant, backoff: RateLimitBackoff?
    ) async -> ClimatePart {
        let service = OpenMeteoArchive.serviceName
        if let backoff {
            let error = WebError.rateLimited(service: service, reason: backoff.explanation)
            return ClimatePart(outcome: .failed(error), requests: 0)
        }
        // On a cold cache one archive request carries both the 30-year baseline and the
        // recent days (1991-01-01 to yesterday); after that the baseline is cached for a
        // year and only the recent window is asked for.
        let normals: Result<Climatology, WebError>
        let series: Result<[(date: String, meanCelsius: Double?)], WebError>
        let requests: Int
        if let cached = cachedClimatology(at: coordinate, now: start) {
            normals = .success(cached)
            (series, requests) = await recentSeries(at: coordinate, now: start, deadline: deadline)
        } else {
            let (both, sent) = await baselineAndRecent(at: coordinate, now: start, deadline: deadline)
            requests = sent
            normals = both.map(\.normals)
            series = both.map(\.recent)
        }
        switch (normals, series) {
        case (.failure(let error), _), (_, .failure(let error)):
            return ClimatePart(outcome: .failed(error), requests: requests)
        case (.success(let normals), .success(let series)):
            guard let trend = ClimateTrend.make(series: series, climatology: normals) else {
                return ClimatePart(
                    outcome: .unavailable("the archive has no temperatures for the last days here"),
                    requests: requests)
            }
            return ClimatePart(outcome: .ok(trend), requests: requests)
        }
    }

    /// ERA5's grid is 0.25°: one baseline serves every point within about 5 km.
    private func baselineKey(_ coordinate: Coordinate) -> String {
        "climate-baseline-" + Self.key(coordinate, decimals: 1)
    }

    private func recentKey(_ coordinate: Coordinate) -> String { "climate-recent-" + Self.key(coordinate) }

    private func cachedClimatology(at coordinate: Coordinate, now start: Date) -> Climatology? {
        let key = baselineKey(coordinate)
        guard let cached = options.cache?.read(key), cached.isFresh(at: start) else { return nil }
        if let normals = try? JSONDecoder().decode(Climatology.self, from: cached.body) { return normals }
        options.cache?.remove(key)
        return nil
    }

    private func baselineAndRecent(at coordinate: Coordinate, now start: Date, deadline: ContinuousClock.Instant)
        async -> (Result<(normals: Climatology, recent: [(date: String, meanCelsius: Double?)]), WebError>, Int)
    {
        var requests = 0
        let url = OpenMeteoArchive(endpoint: options.archive).baselineAndRecentURL(for: coordinate, now: start)
        do {
            let body = try await body(
                url, service: OpenMeteoArchive.serviceName, deadline: deadline, requests: &requests)
            let series = try OpenMeteoArchive.series(from: body)
            let normals = Climatology(series: series.filter { $0.date <= Climatology.lastDay })
            let recentStart = OpenMeteoArchive.recentStart(now: start)
            let recent = series.filter { $0.date >= recentStart }
            if !normals.normals.isEmpty, let encoded = try? JSONEncoder().encode(normals) {
                options.cache?.write(
                    baselineKey(coordinate),
                    .init(storedAt: start, validUntil: start.addingTimeInterval(365 * 86_400), body: encoded))
            }
            options.cache?.write(
                recentKey(coordinate),
                .init(
                    storedAt: start, validUntil: start.addingTimeInterval(6 * 3600),
                    body: OpenMeteoArchive.body(for: recent)))
            return (.success((normals, recent)), requests)
        } catch {
            return (.failure(error), requests)
        }
    }

    private func recentSeries(at coordinate: Coordinate, now start: Date, deadline: ContinuousClock.Instant) async
        -> (Result<[(date: String, meanCelsius: Double?)], WebError>, Int)
    {
        let key = recentKey(coordinate)
        let cached = options.cache?.read(key)
        if !options.refresh, let cached, cached.isFresh(at: start) {
            if let series = try? OpenMeteoArchive.series(from: cached.body) { return (.success(series), 0) }
            options.cache?.remove(key)
        }
        var requests = 0
        let url = OpenMeteoArchive(endpoint: options.archive).recentURL(for: coordinate, now: start)
        do {
            let body = try await body(
                url, service: OpenMeteoArchive.serviceName, deadline: deadline, requests: &requests)
            let series = try OpenMeteoArchive.series(from: body)
            options.cache?.write(
                key, .init(storedAt: start, validUntil: start.addingTimeInterval(6 * 3600), body: body))
            return (.success(series), requests)
        } catch {
            // Last days' temperatures change little: a stale window beats none.
            if let cached, cached.age(at: start) <= options.maxStale,
                let series = try? OpenMeteoArchive.series(from: cached.body)
            {
                return (.success(series), requests)
            }
            return (.failure(error), requests)
        }
    }
}

/// What the fetch-all produced: the air quality (or why not), where it came from, and
/// the climate trend's outcome.
public struct AirData: Sendable {
    /// The air quality, or why there is none.
    public var air: Result<AirQualityReading, AirQualityError>
    /// How old the answer is when it came from the cache; nil when fetched just now.
    public var airCachedAge: TimeInterval?
    /// True when a cached answer stood in for a failed fetch.
    public var airIsStale = false
    /// The climate trend, or why there is none.
    public var climate: ClimateOutcome = .notRequested
    /// What the user should know about the answer (a stale cache standing in).
    public var warnings: [String] = []
    /// HTTP requests sent (retries included).
    public var requests = 0

    /// The fetch's outcome.
    public init(
        air: Result<AirQualityReading, AirQualityError>, airCachedAge: TimeInterval? = nil, airIsStale: Bool = false,
        warnings: [String] = [], requests: Int = 0
    ) {
        self.air = air
        self.airCachedAge = airCachedAge
        self.airIsStale = airIsStale
        self.warnings = warnings
        self.requests = requests
    }
}

/// What became of the optional climate part.
public enum ClimateOutcome: Sendable {
    case ok(ClimateTrend)
    /// The service answered but has nothing for this place or these days.
    case unavailable(String)
    /// The service failed (the error says how, and whether trying later helps); the rest
    /// of the report stands.
    case failed(WebError)
    /// Not asked for (`--no-climate`).
    case notRequested

    /// The trend, when it was computed.
    public var trend: ClimateTrend? {
        if case .ok(let trend) = self { return trend }
        return nil
    }
}
