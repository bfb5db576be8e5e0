import Foundation
import Geo
import TestSupport
import Testing
import Web

@testable import AirQuality

/// The fetch-all against the HTTP double, over the real network stack: cache, back-off,
/// retries and the optional climate part, each seen from what a user of `airloc now`
/// would notice. These prove the wiring; their deadlines are ones only a hung test can
/// miss. What depends on time (retry pauses, deadlines, slow services, back-off windows)
/// is tested in-process on a manual clock in `AirDataPipelineTimingTests`.
@Suite(.enabled(if: ExternalTool.available("python3")))
struct AirDataPipelineTests {
    let berlin = try! Coordinate(latitude: 52.52, longitude: 13.41)

    /// A pipeline pointed at `double`, with its own cache directory. The deadline is ten
    /// minutes: 120 s was once missed (two suites and a busy loop sharing two cores, the
    /// double's 503 waited that long for a thread of the cooperative pool, and a retry
    /// that cannot start before the deadline is rightly not made).
    static func pipeline(
        _ double: HTTPDouble, cache: TemporaryDirectory, deadline: Duration = .seconds(600),
        timeout: Duration = .seconds(300), refresh: Bool = false, maxStale: TimeInterval = 6 * 3600
    ) -> AirDataPipeline {
        let base = ServiceURL(string: double.baseURL)!
        var options = AirDataPipeline.Options(
            airQuality: OpenMeteoEndpoint(base: base, publicBase: OpenMeteoAirQuality.defaultBaseURL, apiKey: "k"),
            archive: OpenMeteoEndpoint(base: base, publicBase: OpenMeteoArchive.defaultBaseURL, apiKey: "k"))
        options.cache = ResponseCache(directory: cache.url.appendingPathComponent("airloc"))
        options.deadline = deadline
        options.requestTimeout = timeout
        options.retry = RetryPolicy(maxRetries: 2, baseDelay: .milliseconds(50))
        options.refresh = refresh
        options.maxStale = maxStale
        return AirDataPipeline(options: options)
    }

    static func paths(_ double: HTTPDouble) throws -> [String] { try double.requests().map(\.path) }

    @Test func aColdCacheCostsTwoRequestsAWarmCacheNone() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let cache = try TemporaryDirectory()
        defer { cache.remove() }
        let cold = await Self.pipeline(double, cache: cache).fetch(at: berlin)
        #expect(try cold.air.get().usAQI == 41)
        #expect(cold.airCachedAge == nil)
        let trend = try #require(cold.climate.trend)
        #expect(trend.days.count == 7)
        #expect(abs(trend.difference - 1.8) < 0.5, "the double's recent days are 1.8 °C above its baseline")
        // One archive request carries the 1991-2020 baseline and the recent days together.
        #expect(cold.requests == 2)
        #expect(try Self.paths(double).sorted() == ["/v1/air-quality", "/v1/archive"])
        let archive = try #require(try double.requests().first { $0.path == "/v1/archive" })
        #expect(archive.query.contains("start_date=1991-01-01"), "\(archive.query)")

        let warm = await Self.pipeline(double, cache: cache).fetch(at: berlin)
        #expect(try warm.air.get() == cold.air.get())
        #expect(warm.airCachedAge != nil && !warm.airIsStale)
        #expect(warm.climate.trend == trend)
        let sent = try Self.paths(double).count
        #expect(warm.requests == 0 && sent == 2, "a warm cache sends nothing")

        // --refresh: the baseline stays cached (a year), so the common case is two requests.
        let fresh = await Self.pipeline(double, cache: cache, refresh: true).fetch(at: berlin)
        #expect(fresh.requests == 2 && fresh.airCachedAge == nil)
        // No key was configured for these hosts' customer variants: none was sent to the double.
        #expect(try double.requests().allSatisfy { !$0.query.contains("apikey") })
    }

    @Test(arguments: ["minutely", "hourly", "daily"])
    func aRateLimitIsHonouredOnTheNextRun(reason: String) async throws {
        let double = try await HTTPDouble.start(faults: [
            #"{"path": "/v1/air-quality", "status": 429, "reason": "\#(reason)", "times": 1}"#
        ])
        defer { double.stop() }
        let cache = try TemporaryDirectory()
        defer { cache.remove() }
        let first = await Self.pipeline(double, cache: cache).fetch(at: berlin)
        guard case .failure(.web(.rateLimited(_, let said))) = first.air else {
            Issue.record("expected a rate-limit failure, got \(first.air)")
            return
        }
        #expect(said?.lowercased().contains(reason) == true, "Open-Meteo's own reason is shown: \(said ?? "")")
        #expect(try Self.paths(double).filter { $0 == "/v1/air-quality" }.count == 1, "a 429 is not retried")
        let before = try Self.paths(double).count
        // The service would answer now, but it asked to be left alone: no request at all.
        let second = await Self.pipeline(double, cache: cache).fetch(at: berlin)
        guard case .failure(let error) = second.air else {
            Issue.record("the back-off was not honoured")
            return
        }
        #expect(error.isRetryable, "exit 75: try again later")
        #expect(error.description.contains("airloc waits until"))
        #expect(try Self.paths(double).count == before)
        #expect(second.requests == 0)
    }

    @Test func anOverloadedServiceGetsOneMoreTry() async throws {
        let double = try await HTTPDouble.start(faults: [#"{"path": "/v1/air-quality", "status": 503, "times": 1}"#])
        defer { double.stop() }
        let cache = try TemporaryDirectory()
        defer { cache.remove() }
        let data = await Self.pipeline(double, cache: cache).fetch(at: berlin)
        #expect(try data.air.get().usAQI == 41)
        #expect(try Self.paths(double).filter { $0 == "/v1/air-quality" }.count == 2)
    }

    /// A refused archive request (Open-Meteo's 400 with a reason) is not worth retrying,
    /// and a script reading the JSON must be told so.
    @Test func aRefusedClimateRequestIsNotRetryable() async throws {
        let double = try await HTTPDouble.start(faults: [
            #"{"path": "/v1/archive", "status": 400, "reason": "Parameter 'start_date' is out of allowed range"}"#
        ])
        defer { double.stop() }
        let cache = try TemporaryDirectory()
        defer { cache.remove() }
        let data = await Self.pipeline(double, cache: cache).fetch(at: berlin)
        #expect(try data.air.get().usAQI == 41)
        guard case .failed(let error) = data.climate else {
            Issue.record("expected the climate part to fail, got \(data.climate)")
            return
        }
        #expect(!error.isRetryable)
        #expect(error.description.contains("out of allowed range"), "\(error)")
    }

    @Test func garbagePollenStillShowsTheAirQuality() async throws {
        let body =
            #"{"timezone":"Europe/Berlin","current":{"time":"2026-04-21T16:00","interval":3600,"us_aqi":41,"pm2_5":8.8,"birch_pollen":"lots","grass_pollen":{"x":1},"alder_pollen":12.0}}"#
        let double = try await HTTPDouble.start(faults: [
            #"{"path": "/v1/air-quality", "status": 200, "body": \#(String(reflecting: body))}"#
        ])
        defer { double.stop() }
        let cache = try TemporaryDirectory()
        defer { cache.remove() }
        let reading = try await Self.pipeline(double, cache: cache).fetch(at: berlin).air.get()
        #expect(reading.usAQI == 41)
        #expect(reading.pollen.species[.birch] == nil && reading.pollen.species[.grass] == nil)
        #expect(reading.pollen.species[.alder] == 12.0)
    }

    @Test func whenTheNetworkIsDownACachedAnswerStandsInWithItsAge() async throws {
        let double = try await HTTPDouble.start()
        let cache = try TemporaryDirectory()
        defer { cache.remove() }
        let online = await Self.pipeline(double, cache: cache).fetch(at: berlin)
        double.stop()
        let offline = await Self.pipeline(double, cache: cache, refresh: true).fetch(at: berlin)
        #expect(try offline.air.get() == online.air.get())
        #expect(offline.airIsStale && offline.airCachedAge != nil)
        #expect(
            offline.warnings.contains { $0.contains("could not refresh") && $0.contains("ago") }, "\(offline.warnings)")
        #expect(offline.climate.trend != nil, "the cached climate stands in too")
        // Older than max-stale: the failure shows.
        let tooOld = await Self.pipeline(double, cache: cache, refresh: true, maxStale: 0).fetch(at: berlin)
        guard case .failure(let error) = tooOld.air else {
            Issue.record("a stale answer older than max-stale was shown")
            return
        }
        #expect(error.isRetryable)
    }

    @Test func aCorruptCacheIsRefetchedNotFatal() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let cache = try TemporaryDirectory()
        defer { cache.remove() }
        _ = await Self.pipeline(double, cache: cache).fetch(at: berlin)
        let directory = cache.url.appendingPathComponent("airloc")
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            try Data("\u{0}garbage{".utf8).write(to: directory.appendingPathComponent(file))
        }
        let again = await Self.pipeline(double, cache: cache).fetch(at: berlin)
        #expect(try again.air.get().usAQI == 41)
        #expect(again.climate.trend != nil)
        #expect(again.requests == 2, "everything was fetched again")
    }

    @Test func anArchiveWithoutRecentDaysIsUnavailableNotAFailure() async throws {
        let body = #"{"daily":{"time":["2026-11-27","2026-11-28"],"temperature_2m_mean":[null,null]}}"#
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let cache = try TemporaryDirectory()
        defer { cache.remove() }
        // The baseline first (the double's own), then recent windows that are all null.
        _ = await Self.pipeline(double, cache: cache).fetch(at: berlin)
        try double.addFault(#"{"path": "/v1/archive", "status": 200, "body": \#(String(reflecting: body))}"#)
        let data = await Self.pipeline(double, cache: cache, refresh: true).fetch(at: berlin)
        guard case .unavailable = data.climate else {
            Issue.record("expected 'not available here', got \(data.climate)")
            return
        }
        #expect(try data.air.get().usAQI == 41)
    }
}
