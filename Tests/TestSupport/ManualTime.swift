import Foundation
import Platform

/// A clock for in-process tests: time stands still until the test (or, in the
/// `advanceTime` mode, a sleeper) moves it, and then it jumps.
///
/// Contract:
/// - `advanceTime` (the default): `sleep(for:)` returns at once, after moving `now` and
///   `date` forward by the pause and recording it in `pauses`. For logic that waits once
///   in a while (a retry's pause, a deadline): it runs to the end without waiting.
///   Pauses taken by concurrent tasks add up (time is one line, not one per task).
/// - `waitForAdvance`: `sleep(for:)` suspends until ``advance(by:)`` has moved the clock to
///   the sleeper's deadline (or the sleeper is cancelled: `CancellationError`). For the
///   `run()` loops of services, which sleep in a loop and would spin on the other mode:
///   the test waits until the loop is parked (``waitForSleepers(_:)``), advances, and looks.
/// Nothing waits on the wall clock, so a test's outcome is the same on an idle laptop
/// and on a loaded two-core CI machine.
public final class ManualTime: TimeSource, @unchecked Sendable {
    public enum Sleepers: Sendable { case advanceTime, waitForAdvance }

    private struct Sleeper {
        var id: Int
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private let origin = ContinuousClock.now
    private let startDate: Date
    private let mode: Sleepers
    private var elapsedTime: Duration = .zero
    private var takenPauses: [Duration] = []
    private var sleeping: [Sleeper] = []
    private var nextID = 0
    /// Sleepers cancelled before they had lain down.
    private var cancelledEarly = Set<Int>()
    private var sleeperWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Starts at `date` (calendar time); monotonic time starts at an arbitrary instant.
    public init(date: Date = Date(timeIntervalSince1970: 1_795_000_000), sleepers: Sleepers = .advanceTime) {
        startDate = date
        mode = sleepers
    }

    public var now: ContinuousClock.Instant { lock.withLock { origin + elapsedTime } }
    public var date: Date { lock.withLock { startDate.addingTimeInterval(elapsedTime.seconds) } }
    /// How far the clock has moved since it was made.
    public var elapsed: Duration { lock.withLock { elapsedTime } }
    /// Every pause a caller slept (or began to sleep), in order.
    public var pauses: [Duration] { lock.withLock { takenPauses } }
    /// How many tasks are asleep on this clock now (`waitForAdvance`).
    public var sleepers: Int { lock.withLock { sleeping.count } }
    /// When the earliest sleeper wakes, as time from now (nil: nobody sleeps).
    public var nextWake: Duration? { lock.withLock { sleeping.map(\.deadline).min().map { $0 - elapsedTime } } }

    /// Moves the clock forward; in `waitForAdvance`, wakes every sleeper whose deadline it
    /// reached, earliest first.
    public func advance(by duration: Duration) {
        let due: [Sleeper] = lock.withLock {
            elapsedTime += max(duration, .zero)
            let due = sleeping.filter { $0.deadline <= elapsedTime }.sorted { $0.deadline < $1.deadline }
            sleeping.removeAll { $0.deadline <= elapsedTime }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        guard mode == .waitForAdvance else {
            lock.withLock {
                elapsedTime += max(duration, .zero)
                takenPauses.append(duration)
            }
            return
        }
        let id: Int = lock.withLock {
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, watchers): (Bool?, [CheckedContinuation<Void, Never>]) = lock.withLock {
                    if cancelledEarly.remove(id) != nil { return (nil, []) }
                    takenPauses.append(duration)
                    if duration <= .zero { return (true, []) }
                    sleeping.append(Sleeper(id: id, deadline: elapsedTime + duration, continuation: continuation))
                    let count = sleeping.count
                    let ready = sleeperWatchers.filter { $0.count <= count }.map(\.continuation)
                    sleeperWatchers.removeAll { $0.count <= count }
                    return (false, ready)
                }
                for watcher in watchers { watcher.resume() }
                switch resumeNow {
                case nil: continuation.resume(throwing: CancellationError())
                case true?: continuation.resume()
                case false?: break
                }
            }
        } onCancel: {
            let cancelled: Sleeper? = lock.withLock {
                guard let index = sleeping.firstIndex(where: { $0.id == id }) else {
                    cancelledEarly.insert(id)
                    return nil
                }
                return sleeping.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns once at least `count` tasks are asleep on this clock (`waitForAdvance`): the
    /// loops under test are parked, and an ``advance(by:)`` now is what wakes them.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = lock.withLock {
                if sleeping.count >= count { return true }
                sleeperWatchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
