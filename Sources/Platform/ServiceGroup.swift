/// Services run together until a stop, then stopped one at a time in the order given:
/// what `airloc log run`, `airloc collect` and `airloc serve` each run until a signal.
///
/// Contract:
/// - Every service starts at once. The group runs until the calling task is cancelled
///   (SIGTERM through ``SignalWatch/untilInterrupted(_:)``: the orderly stop), or until a
///   service fails (``ServiceFailure``: the others are then stopped too), or until every
///   service has returned on its own.
/// - The stop asks each service that is still running to stop, in the order of the
///   `services` array, and waits for it to return before asking the next: the logger writes its last row before the publisher drains, the publisher
///   drains before its connection closes.
/// - A service that has not returned `stopTimeout` after it was asked is cancelled (the
///   hard stop), and the next one is asked.
/// - The outcome lists the failures in the order they happened; a service that failed
///   during the stop is listed too.
public struct ServiceGroup: Sendable {
    /// The services, all started at once, and asked to stop in this order.
    public var services: [any Service]
    /// How long a service asked to stop may take before it is cancelled.
    public var stopTimeout: Duration = .seconds(30)
    /// The clock of the services' contexts and of the stop timeout.
    public var time: any TimeSource
    /// Where every service's notices go.
    public var notify: @Sendable (ServiceNotice) -> Void

    /// How the group ended.
    public struct Outcome: Sendable {
        /// The failures, in the order they happened (empty after an orderly stop).
        public var failures: [ServiceFailure]
        /// The services that had to be cancelled because they did not stop when asked.
        public var cancelled: [ServiceName]
    }

    /// A group of `services`, stopped in the order given.
    public init(
        _ services: [any Service], time: any TimeSource = SystemTime(),
        notify: @escaping @Sendable (ServiceNotice) -> Void = { _ in }
    ) {
        self.services = services
        self.time = time
        self.notify = notify
    }

    private enum Happening: Sendable {
        case ended(Int, ServiceFailure?)
        case stop
        case overdue(Int)
    }

    /// Runs the services until the stop (see the contract).
    public func run() async -> Outcome {
        let (happenings, post) = AsyncStream<Happening>.makeStream()
        let contexts = services.map { ServiceContext(name: $0.name, time: time, notify: notify) }
        // Unstructured, on purpose: child tasks of a task group are all cancelled at once
        // with their parent, and the stop is to go one service at a time, in order.
        let tasks = services.enumerated().map { index, service in
            Task {
                do throws(ServiceFailure) {
                    try await service.run(contexts[index])
                    post.yield(.ended(index, nil))
                } catch {
                    post.yield(.ended(index, error))
                }
            }
        }
        let stopping = Stopping(
            services: services, contexts: contexts, tasks: tasks, time: time, stopTimeout: stopTimeout)
        // The coordinator is unstructured too: a cancelled task's stream iteration ends at
        // once, and the coordinator must read on through the stop.
        let coordinator = Task { await stopping.coordinate(happenings, post: post) }
        return await withTaskCancellationHandler {
            await coordinator.value
        } onCancel: {
            post.yield(.stop)
        }
    }

    /// The coordinator's side: waits for the stop (or a failure), then stops the services
    /// one at a time.
    private struct Stopping: Sendable {
        let services: [any Service]
        let contexts: [ServiceContext]
        let tasks: [Task<Void, Never>]
        let time: any TimeSource
        let stopTimeout: Duration

        func coordinate(_ happenings: AsyncStream<Happening>, post: AsyncStream<Happening>.Continuation) async
            -> Outcome
        {
            var running = Set(tasks.indices)
            var outcome = Outcome(failures: [], cancelled: [])
            var iterator = happenings.makeAsyncIterator()
            while !running.isEmpty, let happening = await iterator.next() {
                if case .stop = happening { break }
                Self.record(happening, running: &running, outcome: &outcome)
                if !outcome.failures.isEmpty { break }
            }
            for index in tasks.indices where running.contains(index) {
                contexts[index].requestStop()
                let (time, stopTimeout) = (self.time, self.stopTimeout)
                let timer = Task {
                    try? await time.sleep(for: stopTimeout)
                    if !Task.isCancelled { post.yield(.overdue(index)) }
                }
                while running.contains(index), let happening = await iterator.next() {
                    if case .overdue(let late) = happening, late == index {
                        outcome.cancelled.append(services[index].name)
                        tasks[index].cancel()
                    }
                    Self.record(happening, running: &running, outcome: &outcome)
                }
                timer.cancel()
            }
            post.finish()
            return outcome
        }

        private static func record(_ happening: Happening, running: inout Set<Int>, outcome: inout Outcome) {
            guard case .ended(let index, let failure) = happening else { return }
            running.remove(index)
            if let failure { outcome.failures.append(failure) }
        }
    }
}
