import Foundation
import Geo
import Web

/// How long to leave Open-Meteo alone after it answered 429.
///
/// Open-Meteo sends no Retry-After; its reason says which limit was hit
/// (reference/open-meteo.md): the minutely limit clears in a minute, the hourly one at
/// the next hour, the daily one tomorrow. Its limits count per client IP across all its
/// APIs, so one back-off covers air quality, archive and geocoding alike.
///
/// Contract: a pure value — `after(reason:at:)` maps a 429 reason to the instant before
/// which no request is sent; an unrecognised reason waits one minute. Stored in the
/// cache directory so that the next run of a script honours it too.
public struct RateLimitBackoff: Codable, Sendable, Equatable {
    /// Which limit: "minutely", "hourly", "daily" or "unknown".
    public var limit: String
    /// The service's own words.
    public var reason: String
    /// No request before this.
    public var until: Date

    /// A back-off for `limit` ("hourly"), the service's `reason`, until `until`.
    public init(limit: String, reason: String, until: Date) {
        self.limit = limit
        self.reason = reason
        self.until = until
    }

    /// The back-off a 429 with `reason` asks for, received at `now`. Hour and day
    /// boundaries are UTC (Open-Meteo's server clock).
    public static func after(reason: String?, at now: Date) -> RateLimitBackoff {
        let text = reason ?? ""
        let lower = text.lowercased()
        let seconds = now.timeIntervalSince1970
        if lower.contains("daily") || lower.contains("tomorrow") {
            let midnight = (seconds / 86_400).rounded(.down) * 86_400 + 86_400
            return RateLimitBackoff(limit: "daily", reason: text, until: Date(timeIntervalSince1970: midnight))
        }
        if lower.contains("hourly") || lower.contains("next hour") {
            let hour = (seconds / 3600).rounded(.down) * 3600 + 3600
            return RateLimitBackoff(limit: "hourly", reason: text, until: Date(timeIntervalSince1970: hour))
        }
        let limit = lower.contains("minutely") || lower.contains("minute") ? "minutely" : "unknown"
        return RateLimitBackoff(limit: limit, reason: text, until: now.addingTimeInterval(60))
    }

    /// True until `until`.
    public func isActive(at now: Date) -> Bool { now < until }

    /// The service's reason with airloc's promise: "Hourly API request limit exceeded.
    /// Please try again in the next hour. (airloc waits until 2026-11-29 17:00:00 UTC)".
    public var explanation: String {
        let time = UTCTime(until)
        let clock = time.text(.second, zone: false).suffix(8)
        let promise = "airloc waits until \(time.text(.day)) \(clock) UTC before asking again"
        return reason.isEmpty ? promise : "\(reason) (\(promise))"
    }

    static let cacheKey = "backoff-open-meteo"

    /// The back-off recorded in `cache`, if any is still active.
    public static func load(from cache: ResponseCache, now: Date) -> RateLimitBackoff? {
        guard let entry = cache.read(cacheKey), let backoff = try? JSONDecoder().decode(Self.self, from: entry.body)
        else { return nil }
        return backoff.isActive(at: now) ? backoff : nil
    }

    /// Keeps the back-off for the next runs.
    public func save(to cache: ResponseCache, now: Date) {
        guard let body = try? JSONEncoder().encode(self) else { return }
        cache.write(Self.cacheKey, .init(storedAt: now, validUntil: until, body: body))
    }
}

/// Open-Meteo's rate limit honoured in one place, by everything that asks it (the air
/// pipeline, `doctor`, the online place search): before asking, ``closed(at:)`` says
/// whether a back-off is in force (then nothing is sent); after a failure,
/// ``record(_:at:)`` keeps a 429's back-off in the cache for every later request and run.
///
/// Contract: without a cache the gate is always open and records nothing.
public struct OpenMeteoGate: Sendable {
    /// Where the back-off is kept.
    public let cache: ResponseCache?

    /// The gate over `cache`.
    public init(cache: ResponseCache?) { self.cache = cache }

    /// The back-off in force at `now`, if any.
    public func closed(at now: Date) -> RateLimitBackoff? {
        cache.flatMap { RateLimitBackoff.load(from: $0, now: now) }
    }

    /// Remembers the back-off a 429 asked for; any other failure changes nothing.
    public func record(_ error: WebError, at now: Date) {
        guard case .rateLimited(_, let reason) = error, let cache else { return }
        RateLimitBackoff.after(reason: reason, at: now).save(to: cache, now: now)
    }
}
