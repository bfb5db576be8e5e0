import Foundation

/// The threads that run blocking work (``BlockingWork``): a job runs on an idle worker when
/// there is one, else on a new one; a worker idle for ``idleFor`` ends.
///
/// Why: a thread per call made a thread per batch while the collector drained a backlog
/// (thousands in a minute), each a stack to map and a name to set. Kept, the workers are
/// as many as the calls ever running at once.
///
/// Contract: ``run(_:_:)`` never waits: when every worker is busy (one may be stuck in C
/// for good, abandoned with its call) a new one starts at once, so a job that waits on
/// another job cannot deadlock. Each job runs under its own thread name.
public final class WorkerPool: Sendable {
    /// The process's pool.
    public static let shared = WorkerPool()
    /// How long an idle worker waits for a job before it ends.
    public static let idleFor = 30.0

    private struct Job: Sendable {
        let name: String
        let body: @Sendable () -> Void
    }
    private struct State: Sendable {
        var jobs: [Job] = []
        /// Workers waiting for a job, or started and about to.
        var idle = 0
        var workers = 0
        /// Workers ever started (for tests and `/metrics`-like counts).
        var started = 0
    }
    private let state = GuardedState(State())

    /// A pool with no worker yet.
    public init() {}

    /// Runs `body` on a worker named `name`.
    public func run(_ name: String, _ body: @escaping @Sendable () -> Void) {
        // A worker that just resumed its caller may be about to be idle again (that caller
        // often asks the next call at once): then a second worker starts, which later calls
        // find idle. Never a wait, and never a timer that a starved queue could delay.
        let spawn = state.change { state -> Bool in
            state.jobs.append(Job(name: name, body: body))
            guard state.jobs.count > state.idle else { return false }
            state.idle += 1
            state.workers += 1
            state.started += 1
            return true
        }
        if spawn { startWorker() }
    }

    /// Workers started since the pool was made.
    public var started: Int { state.withLock { $0.started } }
    /// Workers alive now.
    public var workers: Int { state.withLock { $0.workers } }

    private func startWorker() {
        let state = self.state
        let thread = Thread {
            while true {
                let job = state.wait(seconds: Self.idleFor) { state -> Job? in
                    guard !state.jobs.isEmpty else { return nil }
                    state.idle -= 1
                    return state.jobs.removeFirst()
                }
                guard let job else {
                    let leave = state.withLock { state -> Bool in
                        guard state.jobs.isEmpty else { return false }
                        state.idle -= 1
                        state.workers -= 1
                        return true
                    }
                    if leave { return }
                    continue
                }
                Thread.current.name = job.name
                job.body()
                state.withLock { $0.idle += 1 }
            }
        }
        thread.start()
    }
}
