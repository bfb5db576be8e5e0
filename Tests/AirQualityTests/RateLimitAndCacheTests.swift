import Foundation
import TestSupport
import Testing
import Web

@testable import AirQuality

struct RateLimitAndCacheTests {
    /// 2026-11-29 16:24:10 UTC.
    let now = Date(timeIntervalSince1970: 1_795_969_450)

    @Test func eachOpenMeteoReasonWaitsAsLongAsItSays() {
        let minutely = RateLimitBackoff.after(
            reason: "Minutely API request limit exceeded. Please try again in one minute.", at: now)
        #expect(minutely.limit == "minutely" && minutely.until == now.addingTimeInterval(60))
        let hourly = RateLimitBackoff.after(
            reason: "Hourly API request limit exceeded. Please try again in the next hour.", at: now)
        #expect(hourly.limit == "hourly" && hourly.until == Date(timeIntervalSince1970: 1_795_971_600), "17:00 UTC")
        let daily = RateLimitBackoff.after(
            reason: "Daily API request limit exceeded. Please try again tomorrow.", at: now)
        #expect(daily.limit == "daily" && daily.until == Date(timeIntervalSince1970: 1_795_996_800), "midnight UTC")
        let unknown = RateLimitBackoff.after(reason: nil, at: now)
        #expect(unknown.limit == "unknown" && unknown.until == now.addingTimeInterval(60))
        #expect(hourly.isActive(at: now) && !hourly.isActive(at: hourly.until))
        #expect(hourly.explanation.hasSuffix("(airloc waits until 2026-11-29 17:00:00 UTC before asking again)"))
    }

    @Test func aBackOffSurvivesIntoTheNextRunAndEnds() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = ResponseCache(directory: directory.url.appendingPathComponent("airloc"))
        #expect(RateLimitBackoff.load(from: cache, now: now) == nil)
        let hourly = RateLimitBackoff.after(reason: "Hourly API request limit exceeded.", at: now)
        hourly.save(to: cache, now: now)
        #expect(RateLimitBackoff.load(from: cache, now: now.addingTimeInterval(600)) == hourly)
        #expect(RateLimitBackoff.load(from: cache, now: hourly.until) == nil, "over at 17:00")
    }

    @Test func theCacheKeepsAnswersPrivatelyAndDropsCorruptFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = ResponseCache(directory: directory.url.appendingPathComponent("airloc"))
        let entry = ResponseCache.Entry(storedAt: now, validUntil: now.addingTimeInterval(3600), body: Data("{}".utf8))
        cache.write("air-52.5200,13.4100", entry)
        #expect(cache.read("air-52.5200,13.4100") == entry)
        #expect(entry.isFresh(at: now.addingTimeInterval(3599)) && !entry.isFresh(at: now.addingTimeInterval(3600)))
        #expect(!entry.isFresh(at: now.addingTimeInterval(-3600)), "a clock set back does not make old answers fresh")
        let attributes = try FileManager.default.attributesOfItem(atPath: cache.directory.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o700, "coordinates are personal data")
        // A half-written or garbage file (power cut, disk error): absent, and removed.
        let file = cache.file("air-52.5200,13.4100")
        try Data("{\"storedAt\": 17".utf8).write(to: file)
        #expect(cache.read("air-52.5200,13.4100") == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        // No key can reach outside the directory.
        #expect(cache.file("../../etc/passwd").deletingLastPathComponent().path == cache.directory.path)
    }

    @Test func europeanBandsBelongToTheLowerBandOnTheirEdge() {
        let edges: [(Int, EuropeanAQICategory)] = [
            (0, .good), (20, .good), (21, .fair), (40, .fair), (41, .moderate), (60, .moderate), (61, .poor),
            (80, .poor), (81, .veryPoor), (100, .veryPoor), (101, .extremelyPoor), (250, .extremelyPoor),
        ]
        for (index, band) in edges { #expect(EuropeanAQICategory(index: index) == band, "\(index)") }
    }

    @Test func retriesOnlyWhatASecondAttemptCanCureWithJitteredDoublingPauses() {
        #expect(RetryPolicy.isTransient(.serverError(service: "s", status: 503, reason: nil)))
        #expect(RetryPolicy.isTransient(.timedOut(service: "s", seconds: 1)))
        #expect(!RetryPolicy.isTransient(.serverError(service: "s", status: 500, reason: nil)))
        #expect(!RetryPolicy.isTransient(.rateLimited(service: "s", reason: nil)), "429 waits minutes, not ms")
        #expect(!RetryPolicy.isTransient(.rejected(service: "s", status: 400, reason: "Latitude must be…")))
        #expect(!RetryPolicy.isTransient(.undecodable(service: "s", reason: "not JSON")))
        let policy = RetryPolicy(maxRetries: 2, baseDelay: .milliseconds(400))
        #expect(policy.delay(beforeRetry: 1, random: 0) == .milliseconds(200))
        #expect(policy.delay(beforeRetry: 1, random: 1) == .milliseconds(400))
        #expect(policy.delay(beforeRetry: 2, random: 0) == .milliseconds(400))
        #expect(policy.delay(beforeRetry: 2, random: 1) == .milliseconds(800))
    }

    @Test func anAPIKeyGoesOnlyToOpenMeteosCustomerHosts() {
        let publicBase = OpenMeteoAirQuality.defaultBaseURL
        let keyed = OpenMeteoEndpoint(base: publicBase, publicBase: publicBase, apiKey: "s3cr3t")
        let url = keyed.url(path: "/v1/air-quality", query: [("latitude", "1")]).absoluteString
        #expect(url == "https://customer-air-quality-api.open-meteo.com/v1/air-quality?latitude=1&apikey=s3cr3t")
        let free = OpenMeteoEndpoint(base: publicBase, publicBase: publicBase, apiKey: nil)
        #expect(
            free.url(path: "/v1/air-quality", query: []).absoluteString
                == "https://air-quality-api.open-meteo.com/v1/air-quality")
        // A proxy, a test double or a plain-HTTP customer URL never sees the key.
        for other in [
            "http://127.0.0.1:8080", "https://proxy.example", "http://customer-air-quality-api.open-meteo.com",
        ] {
            let endpoint = OpenMeteoEndpoint(base: ServiceURL(string: other)!, publicBase: publicBase, apiKey: "s3cr3t")
            #expect(!endpoint.sendsAPIKey, "\(other)")
            #expect(!endpoint.url(path: "/v1/air-quality", query: []).absoluteString.contains("s3cr3t"))
        }
        let customer = OpenMeteoEndpoint(
            base: ServiceURL(string: "https://customer-air-quality-api.open-meteo.com")!, publicBase: publicBase,
            apiKey: "s3cr3t")
        #expect(customer.sendsAPIKey)
    }
}
