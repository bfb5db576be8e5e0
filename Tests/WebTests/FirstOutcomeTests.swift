import Testing

@testable import Web

/// The race behind the transport's hard deadline: the first outcome wins, whether it
/// comes before or after someone waits, and a late one changes nothing — so a request
/// that never ends cannot hold the caller past the deadline.
struct FirstOutcomeTests {
    @Test func theFirstOutcomeWinsAndLaterOnesAreDropped() async {
        let outcome = FirstOutcome<String>()
        outcome.settle("deadline")
        outcome.settle("answer")
        #expect(await outcome.value == "deadline")
    }

    @Test func aWaiterGetsTheOutcomeThatArrivesLater() async {
        let outcome = FirstOutcome<Int>()
        // The "request" never settles; only the "deadline" does, after the wait began.
        let never = Task { try? await Task.sleep(for: .seconds(3600)) }
        defer { never.cancel() }
        async let waited = outcome.value
        Task { outcome.settle(75) }
        #expect(await waited == 75)
    }
}
