import Foundation
import Geo
import TestSupport
import Testing
import Web

@testable import AirQuality

/// The fetch-all's dealings with time — retries and their pauses, the one deadline, slow
/// services, the cache's lifetimes and Open-Meteo's rate-limit windows — in-process, on a
/// manual clock and scripted services. Nothing here waits on the wall clock, so each
/// outcome is the same on any machine however busy (these once flaked on a loaded 2-core
/// CI machine when they ran against the HTTP double with a wall-clock deadline).
@Suite struct AirDataPipelineTimingTests {
    let berlin = try! Coordinate(latitude: 52.52, longitude: 13.41)

    /// A pipeline on `services` and its clock, with the CLI's defaults: 10 s per request,
    /// 15 s in all, two retries after 0.2-0.4 s and 0.4-0.8 s.
    static func pipeline(
        _ services: ScriptedServices, cache: TemporaryDirectory? = nil, climate: Bool = true,
        deadline: Duration = .seconds(15), timeout: Duration = .seconds(10), refresh: Bool = false
    ) -> AirDataPipeline {
        let base = ServiceURL(string: "http://services.test")!
        var options = AirDataPipeline.Options(
            airQuality: OpenMeteoEndpoint(base: base, publicBase: OpenMeteoAirQuality.defaultBaseURL, apiKey: nil),
            archive: OpenMeteoEndpoint(base: base, publicBase: OpenMeteoArchive.defaultBaseURL, apiKey: nil))
        options.cache = cache.map { ResponseCache(directory: $0.url.appendingPathComponent("airloc")) }
        options.deadline = deadline
        options.requestTimeout = timeout
        options.climate = climate
        options.refresh = refresh
        return AirDataPipeline(options: options, transport: services, time: services.time)
    }

    static let air = "/v1/air-quality"
    static let archive = "/v1/archive"

    @Test func anOverloadedServiceGetsOneMoreTryAfterAShortPause() async throws {
        let services = ScriptedServices(time: ManualTime())
        services.script(Self.air, .status(503))
        let data = await Self.pipeline(services, climate: false).fetch(at: berlin)
        #expect(try data.air.get().usAQI == 41)
        #expect(services.requests(to: Self.air).count == 2)
        #expect(data.requests == 2)
        let pause = try #require(services.time.pauses.first)
        #expect(pause >= .milliseconds(200) && pause <= .milliseconds(400), "equal jitter of 0.4 s: \(pause)")
    }

    @Test func aServiceThatStaysOverloadedIsTriedThreeTimesAtMost() async throws {
        let services = ScriptedServices(time: ManualTime())
        services.always(Self.air, .status(503, reason: "The service is overloaded"))
        let data = await Self.pipeline(services, climate: false).fetch(at: berlin)
        guard case .failure(.web(.serverError(_, 503, let reason))) = data.air else {
            Issue.record("expected the 503, got \(data.air)")
            return
        }
        #expect(reason == "The service is overloaded", "the service's own words are kept")
        #expect(services.requests(to: Self.air).count == 3)
        let pauses = services.time.pauses
        #expect(pauses.count == 2)
        #expect(pauses.count == 2 && pauses[1] >= .milliseconds(400) && pauses[1] <= .milliseconds(800))
    }

    @Test(arguments: [400, 404, 429])
    func aRefusalIsNeverRetried(status: Int) async throws {
        let services = ScriptedServices(time: ManualTime())
        services.always(Self.air, .status(status))
        let data = await Self.pipeline(services, climate: false).fetch(at: berlin)
        #expect((try? data.air.get()) == nil)
        #expect(services.requests(to: Self.air).count == 1)
        #expect(services.time.pauses.isEmpty)
    }

    /// Each attempt gets what is left of the deadline, and the whole fetch ends by it:
    /// a service that never answers costs the user the configured 15 s, not 3 × 10 s.
    @Test func aServiceThatNeverAnswersCostsTheDeadlineNotMore() async throws {
        let services = ScriptedServices(time: ManualTime())
        services.always(Self.air, .slow(.seconds(3600)))
        let data = await Self.pipeline(services, climate: false).fetch(at: berlin)
        guard case .failure(.web(.timedOut(_, let seconds))) = data.air else {
            Issue.record("expected a timeout, got \(data.air)")
            return
        }
        // What the user waited for, not the 4.6 s the last attempt had left.
        #expect(seconds == 15, "reported \(seconds) s")
        #expect(services.time.elapsed <= .seconds(15), "ended after \(services.time.elapsed)")
        let sent = services.requests(to: Self.air)
        #expect(sent.count == 2, "10 s, a pause, then the 4.6-4.8 s left: \(sent.map(\.timeout))")
        #expect(sent.first?.timeout == .seconds(10))
        if sent.count == 2 {
            #expect(sent[1].sentAt + sent[1].timeout <= .seconds(15), "the second attempt was cut to the deadline")
        }
        #expect(data.air.isRetryable)
    }

    /// A pause that would end too close to the deadline for an attempt is not taken.
    @Test func noRetryStartsThatCouldNotFinishBeforeTheDeadline() async throws {
        let services = ScriptedServices(time: ManualTime())
        services.always(Self.air, .slow(.milliseconds(950), then: .status(503)))
        let data = await Self.pipeline(services, climate: false, deadline: .seconds(1)).fetch(at: berlin)
        guard case .failure(.web(.serverError(_, 503, _))) = data.air else {
            Issue.record("expected the 503, got \(data.air)")
            return
        }
        #expect(services.requests(to: Self.air).count == 1)
        #expect(services.time.pauses.isEmpty)
    }

    @Test func aSlowClimateServiceCostsTheClimateNotTheReport() async throws {
        let services = ScriptedServices(time: ManualTime())
        services.always(Self.archive, .slow(.seconds(3600)))
        let data = await Self.pipeline(services).fetch(at: berlin)
        #expect(try data.air.get().usAQI == 41)
        guard case .failed(let error) = data.climate else {
            Issue.record("expected the climate part to fail, got \(data.climate)")
            return
        }
        #expect(error.description.contains("Open-Meteo archive") && error.description.contains("did not answer"))
        #expect(error.isRetryable, "a timeout is worth trying again")
    }

    @Test func theClimateTrendComesFromOneArchiveRequest() async throws {
        let services = ScriptedServices(time: ManualTime())
        let data = await Self.pipeline(services).fetch(at: berlin)
        let trend = try #require(data.climate.trend)
        #expect(abs(trend.difference - 1.8) < 1e-9)
        #expect(trend.days.count == 7)
        #expect(data.requests == 2, "air quality, and one archive request for the baseline and the recent days")
        // Then the baseline is cached for a year: a refresh asks only for the recent window.
        let cache = try TemporaryDirectory()
        defer { cache.remove() }
        _ = await Self.pipeline(services, cache: cache).fetch(at: berlin)
        let before = services.requests(to: Self.archive).count
        let refreshed = await Self.pipeline(services, cache: cache, refresh: true).fetch(at: berlin)
        #expect(refreshed.requests == 2 && refreshed.climate.trend?.difference == trend.difference)
        let recent = try #require(services.requests(to: Self.archive).last)
        #expect(services.requests(to: Self.archive).count == before + 1)
        #expect(recent.query["start_date"] != "1991-01-01", "the baseline came from the cache")
    }

    /// The air quality is cached until the data's next hour, by the data's own clock.
    @Test func theCacheAnswersUntilTheNextValueExists() async throws {
        let cache = try TemporaryDirectory()
        defer { cache.remove() }
        // 10:20 UTC: the service's current value is 11:00 local (UTC+1), valid until 12:00.
        let hour = 1_795_000_000 - 1_795_000_000 % 3600
        let time = ManualTime(date: Date(timeIntervalSince1970: TimeInterval(hour + 1200)))
        let services = ScriptedServices(time: time)
        _ = await Self.pipeline(services, cache: cache, climate: false).fetch(at: berlin)
        time.advance(by: .seconds(30 * 60))
        let warm = await Self.pipeline(services, cache: cache, climate: false).fetch(at: berlin)
        #expect(warm.requests == 0 && warm.airCachedAge == 1800)
        time.advance(by: .seconds(15 * 60))
        let next = await Self.pipeline(services, cache: cache, climate: false).fetch(at: berlin)
        #expect(next.requests == 1, "the next hour's value exists: asked again")
    }

    /// Open-Meteo's hourly limit: nothing is sent until the next full hour UTC, then the
    /// service is asked again.
    @Test func anHourlyRateLimitIsHonouredUntilTheNextHour() async throws {
        let cache = try TemporaryDirectory()
        defer { cache.remove() }
        let hour = 1_795_000_000 - 1_795_000_000 % 3600
        let time = ManualTime(date: Date(timeIntervalSince1970: TimeInterval(hour + 600)))
        let services = ScriptedServices(time: time)
        services.script(
            Self.air, .status(429, reason: "Hourly API request limit exceeded. Please try again in the next hour."))
        let first = await Self.pipeline(services, cache: cache, climate: false).fetch(at: berlin)
        guard case .failure(.web(.rateLimited)) = first.air else {
            Issue.record("expected the rate limit, got \(first.air)")
            return
        }
        time.advance(by: .seconds(49 * 60))
        let during = await Self.pipeline(services, cache: cache).fetch(at: berlin)
        #expect(during.requests == 0 && services.requests.count == 1, "nothing sent before the hour ends")
        #expect((try? during.air.get()) == nil)
        time.advance(by: .seconds(60))
        let after = await Self.pipeline(services, cache: cache, climate: false).fetch(at: berlin)
        #expect(try after.air.get().usAQI == 41)
        #expect(services.requests.count == 2)
    }
}

extension Result where Failure == AirQualityError {
    var isRetryable: Bool {
        if case .failure(let error) = self { return error.isRetryable }
        return false
    }
}
