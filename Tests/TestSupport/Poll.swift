import Foundation

/// Waiting for a condition a test cannot be told about directly (a child process's
/// state, a fixture's progress), instead of sleeping for a guessed time.
///
/// Contract: checks `condition` every 50 ms and returns as soon as it holds; throws a
/// ``FixtureError`` naming `what` after `deadline`, which is meant to be reached only by
/// a hung test (minutes, not the seconds a busy machine may take).
public enum Poll {
    public static func until(
        _ what: String, deadline: Duration = .seconds(120), _ condition: @Sendable () -> Bool
    ) async throws {
        let end = ContinuousClock.now + deadline
        while !condition() {
            guard ContinuousClock.now < end else { throw FixtureError("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// ``until(_:deadline:_:)`` for a condition that itself awaits (a command's output).
    public static func until(
        _ what: String, deadline: Duration = .seconds(120), _ condition: @Sendable () async throws -> Bool
    ) async throws {
        let end = ContinuousClock.now + deadline
        while try await !condition() {
            guard ContinuousClock.now < end else { throw FixtureError("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
