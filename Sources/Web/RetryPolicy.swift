import Foundation
import Platform

/// When and how soon a failed request is tried again.
///
/// Contract: only failures that a second attempt can cure are retried — HTTP 503 and
/// timeouts (an overloaded service, a slow link) — at most `maxRetries` times, and only
/// while the next attempt can still start before `deadline`. 429s are never retried
/// here: Open-Meteo says how long to wait, and that is minutes to a day (see
/// `RateLimitBackoff` in AirQuality). A 4xx with a reason is the caller's mistake and is
/// shown, not repeated. The delay doubles from `baseDelay` with "equal jitter" (half
/// fixed, half random) so that many loggers behind one NAT do not retry in step.
public struct RetryPolicy: Sendable, Equatable {
    /// Retries at most (0: none).
    public var maxRetries: Int
    /// The first pause; it doubles per retry, with jitter.
    public var baseDelay: Duration

    /// A policy of `maxRetries` retries from `baseDelay`.
    public init(maxRetries: Int = 2, baseDelay: Duration = .milliseconds(400)) {
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
    }

    /// No retries at all.
    public static let none = RetryPolicy(maxRetries: 0)

    /// True for the failures a later attempt may cure within seconds.
    public static func isTransient(_ error: WebError) -> Bool {
        switch error {
        case .timedOut: return true
        case .serverError(_, let status, _): return status == 503 || status == 502 || status == 504
        case .unreachable, .rateLimited, .rejected, .undecodable, .cancelled: return false
        }
    }

    /// The pause before retry number `retry` (1-based), given a uniform random number
    /// in 0..<1: between half and all of `baseDelay × 2^(retry-1)`.
    public func delay(beforeRetry retry: Int, random: Double) -> Duration {
        Backoff(first: baseDelay, cap: baseDelay * 1024, jitter: true).delay(afterFailures: retry, random: random)
    }
}

extension HTTPClient {
    /// GETs `url` and returns a 2xx body, retrying transient failures (503, timeouts) per
    /// `policy`; any other HTTP error is thrown as ``check(status:body:service:)`` maps
    /// it. Each attempt's timeout is cut to what is left before `deadline`, so the whole
    /// exchange, retries and pauses included, ends by `deadline`.
    ///
    /// `attempts` counts the requests sent (whatever the outcome). `deadline` is an
    /// instant of `time`.
    public func get(
        _ url: URL, service: String, retrying policy: RetryPolicy, deadline: ContinuousClock.Instant,
        attempts: inout Int, random: @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) async throws(WebError) -> Data {
        var attempt = 0
        // A timeout is reported as what the user waited for: the whole deadline when the
        // last attempt was cut short by it (not the 0.16 s that happened to be left).
        let waited = (deadline - time.now).seconds
        func timedOut(_ failure: WebError, cut: Bool) -> WebError {
            guard cut, case .timedOut = failure else { return failure }
            return .timedOut(service: service, seconds: (waited * 10).rounded() / 10)
        }
        while true {
            attempt += 1
            let left = deadline - time.now
            guard left > .milliseconds(50) else {
                throw .timedOut(service: service, seconds: (waited * 10).rounded() / 10)
            }
            attempts += 1
            var client = self
            client.timeout = min(timeout, left)
            let failure: WebError
            do {
                let (status, body) = try await client.get(url, service: service)
                try HTTPClient.check(status: status, body: body, service: service)
                return body
            } catch {
                failure = timedOut(error, cut: client.timeout < timeout)
            }
            guard RetryPolicy.isTransient(failure), attempt <= policy.maxRetries else { throw failure }
            let pause = policy.delay(beforeRetry: attempt, random: random())
            // A retry that could not even start before the deadline is not worth the wait.
            guard deadline - time.now > pause + .milliseconds(100) else { throw failure }
            do { try await time.sleep(for: pause) } catch { throw .cancelled(service: service) }
        }
    }
}
