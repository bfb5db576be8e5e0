import Platform
import Testing

/// The race behind every hard deadline and stop: the first value wins, whether it comes
/// before or after someone waits, and a late one changes nothing — so a request that
/// never ends cannot hold the caller past the deadline.
struct OnceCellTests {
    @Test func theFirstValueWinsAndLaterOnesAreDropped() async {
        let cell = OnceCell<String>()
        #expect(cell.set("deadline"))
        #expect(!cell.set("answer"))
        #expect(await cell.value == "deadline")
    }

    @Test func waitersGetTheValueThatArrivesLater() async {
        let cell = OnceCell<Int>()
        // The "request" never sets it; only the "deadline" does, after the waits began.
        async let first = cell.value
        async let second = cell.value
        Task { cell.set(75) }
        #expect(await first == 75)
        #expect(await second == 75)
    }
}
