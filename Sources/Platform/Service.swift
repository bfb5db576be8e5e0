/// A long-running part of a program, run by a ``ServiceGroup``: the logger, the
/// publisher, an upload, an MQTT connection, the collector, a web server.
///
/// Contract:
/// - ``run(_:)`` goes on until its context asks it to stop (``ServiceContext/stopRequested()``),
///   then finishes what it holds (the logger its last row, the publisher what is in
///   flight) and returns. It may also return on its own when it has nothing more to do.
/// - It throws a ``ServiceFailure`` only for a trouble that retrying cannot cure (refused
///   credentials, a configuration that cannot work): the group then stops the others.
///   Every other trouble it outlives, says once, and retries on its own back-off.
/// - Cancellation is the hard stop, for a service that did not stop when asked: it ends as
///   soon as it can, and what it held may be cut short.
/// - It waits on events (a stream, a timer on the context's clock), never polls.
public protocol Service: Sendable {
    /// Which service it is, for the journal and for a failure (``ServiceName/logger``,
    /// ``ServiceName/mqtt``, ``ServiceName/upload(_:)``).
    var name: ServiceName { get }
    func run(_ context: ServiceContext) async throws(ServiceFailure)
}

/// Why a service cannot go on: a matter of configuration or of the system, which retrying
/// cannot cure.
public struct ServiceFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of trouble it is, for the exit status.
    public enum Kind: Sendable, Equatable {
        /// The settings cannot work as written (refused credentials, a bad section): 78.
        case configuration
        /// Something the service needs is not there (a library, a device): 69.
        case unavailable
        /// Writing or reading what it keeps failed for good: 74.
        case storage
    }

    /// The service that failed.
    public var service: ServiceName
    /// Configuration, unavailable or storage: what the command's exit status says.
    public var kind: Kind
    /// What is wrong, in words a person can act on (no secret, no position).
    public var message: String
    /// What can help, for the program to word.
    public var remedy: ServiceNotice.Remedy?

    /// A failure of `service`.
    public init(service: ServiceName, kind: Kind, message: String, remedy: ServiceNotice.Remedy? = nil) {
        self.service = service
        self.kind = kind
        self.message = message
        self.remedy = remedy
    }

    /// The message.
    public var description: String { message }
}

/// What a running service gets from its group: its name, the clock, where to say what
/// happens, and the request to stop.
///
/// Contract: the stop request comes at most once; ``whenStopping(_:)`` actions run exactly
/// once, at the request (at once when it already came), on the requesting thread — they
/// should only hand the news on (yield into a stream, set a ``StopSignal``).
public final class ServiceContext: Sendable {
    /// The service's name in its group.
    public let name: ServiceName
    /// The clock its timers and deadlines use (a manual one in tests).
    public let time: any TimeSource
    /// Where it says what happens (the journal).
    public let notify: @Sendable (ServiceNotice) -> Void
    private let stop = OnceCell<Bool>()
    private let actions = Lock<[@Sendable () -> Void]>([])

    /// A context for the service `name`, on `time`, speaking through `notify`.
    public init(
        name: ServiceName, time: any TimeSource = SystemTime(), notify: @escaping @Sendable (ServiceNotice) -> Void
    ) {
        self.name = name
        self.time = time
        self.notify = notify
    }

    /// True once the group asked this service to stop.
    public var isStopping: Bool { stop.current != nil }

    /// Returns when the group asks this service to stop.
    public func stopRequested() async { _ = await stop.value }

    /// Runs `action` once when the stop is requested (at once if it already was).
    public func whenStopping(_ action: @escaping @Sendable () -> Void) {
        let now: Bool = actions.withLock { actions in
            guard stop.current == nil else { return true }
            actions.append(action)
            return false
        }
        // The look and the request are under one lock: an action either joins the list
        // before the request takes it, or sees the request and runs here.
        if now { action() }
    }

    /// Asks the service to stop (the group does; a program running one service alone may).
    public func requestStop() {
        let pending: [@Sendable () -> Void] = actions.withLock { actions in
            guard stop.set(true) else { return [] }
            defer { actions = [] }
            return actions
        }
        for action in pending { action() }
    }
}
