import Foundation

/// Runs blocking fixture work (starting gpsd, waiting for a child process) on a thread of
/// its own and awaits it, so that tests running in parallel never tie up Swift's small
/// cooperative pool (two threads on a two-core machine) — which would stall every other
/// test's timers and streams for as long as the slowest fixture blocks.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}
