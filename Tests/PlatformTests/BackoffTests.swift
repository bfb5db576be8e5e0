import Platform
import Testing

/// The one back-off: how long each retrying part waits after failures in a row.
@Suite struct BackoffTests {
    @Test func thePauseDoublesFromTheFirstToTheCapAndASuccessStartsAgain() {
        var backoff = Backoff(first: .seconds(1), cap: .seconds(30))
        let pauses = (1...7).map { _ in backoff.failed() }
        #expect(pauses == [1, 2, 4, 8, 16, 30, 30].map { Duration.seconds($0) })
        #expect(backoff.failures == 7)
        backoff.succeeded()
        #expect(backoff.failed() == .seconds(1))
    }

    @Test func aServersWordIsHonouredUpToItsLimit() {
        // An upload: the server's Retry-After decides, at most an hour.
        var upload = Backoff(first: .seconds(5), cap: .seconds(600), serverDecides: true)
        #expect(upload.failed(server: .seconds(2)) == .seconds(2))
        #expect(upload.failed(server: .seconds(86_400)) == .seconds(3600))
        #expect(upload.failed() == .seconds(20), "the third failure in a row, without a word")
        // The logger's air fetch: the later of its own pause and the rate limit's window.
        var air = Backoff(first: .seconds(5), cap: .seconds(60), longestHonoured: .seconds(2 * 86_400))
        #expect(air.failed(server: .seconds(1)) == .seconds(5))
        #expect(air.failed(server: .seconds(7200)) == .seconds(7200))
    }

    @Test func jitterSpreadsThePauseOverItsUpperHalf() {
        var backoff = Backoff(first: .milliseconds(400), cap: .seconds(400), jitter: true)
        #expect(backoff.failed(random: 0) == .milliseconds(200))
        #expect(backoff.failed(random: 1) == .milliseconds(800))
        #expect(backoff.failed(random: 0.5) == .milliseconds(1200))
    }

    @Test func aHugeCountStaysAtTheCap() {
        let backoff = Backoff(first: .seconds(1), factor: 10, cap: .seconds(600))
        #expect(backoff.pause(afterFailures: 1000) == .seconds(600))
        #expect(backoff.pause(afterFailures: 0) == .zero)
    }
}
