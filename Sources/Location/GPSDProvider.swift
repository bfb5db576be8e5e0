import Foundation
import Geo
import Platform
import Synchronization

/// Reads the device's position from gpsd through libgps.
///
/// Contract:
/// - ``currentFix(timeout:)`` connects, asks gpsd for the fix it already holds (`?POLL;`,
///   answered at once) and otherwise waits for the first valid streamed fix (mode 2D/3D,
///   finite position), or throws a ``GPSDError`` within the timeout. It does not retry a
///   gpsd that is not running: a one-shot caller wants the next provider, not a wait.
/// - ``updates()`` watches for ever: it reconnects with back-off after gpsd stops or
///   restarts, and reports stale and lost fixes (``GPSDTracker``).
/// - libgps blocks, so both run on a dedicated thread, never on Swift's cooperative pool;
///   the caller is released at the deadline even if libgps is stuck in connect().
public struct GPSDProvider: LocationProvider {
    /// Where gpsd listens.
    public struct Options: Sendable, Equatable {
        /// gpsd's host.
        public var host: String
        /// gpsd's port.
        public var port: Int

        /// gpsd at `host:port`.
        public init(host: String = "localhost", port: Int = 2947) {
            self.host = host
            self.port = port
        }
    }

    /// The provider's name in the chain.
    public let name = "gpsd"
    /// It senses the device's location: it needs authorization.
    public let senses = true
    /// Where gpsd is.
    public var options: Options
    /// The first fix's timeout, stale, lost and reconnect rules.
    public var timing: GPSDTiming

    /// The provider for gpsd at `options`.
    public init(options: Options = Options(), timing: GPSDTiming = GPSDTiming()) {
        self.options = options
        self.timing = timing
    }

    /// The current fix (see the contract).
    public func currentFix(timeout: Duration) async throws -> Fix {
        try await currentFix(timeout: timeout, seen: SeenMode())
    }

    /// `seen` follows the receiver's mode while the caller waits (tests wait on it for the
    /// first report instead of sleeping).
    func currentFix(timeout: Duration, seen: SeenMode) async throws -> Fix {
        let seconds = timeout.seconds
        let options = self.options
        let staleAfter = timing.staleAfter
        // The watchdog (the deadline): even a connect() that libgps cannot interrupt does
        // not hold the caller past it.
        return try await BlockingWork.run(
            "airloc-gpsd", deadline: timeout + .milliseconds(500),
            late: { .failure(GPSDError.noFix(seconds: seconds, lastMode: seen.mode)) }
        ) { stop in
            GPSDProvider.firstFix(options: options, seconds: seconds, staleAfter: staleAfter, stop: stop, seen: seen)
        }.get()
    }

    /// The fixes for ever, with stale, lost and reconnects (see the contract).
    public func updates() -> AsyncStream<LocationUpdate> {
        let options = self.options
        let timing = self.timing
        return BlockingWork.stream("airloc-gpsd-watch") { stop, emit in
            GPSDProvider.watch(options: options, timing: timing, stop: stop, emit: emit)
        }
    }

    /// The same updates, handed on from the watch's own thread.
    public func pushUpdates(to deliver: @escaping @Sendable (LocationUpdate?) -> Void) -> StopSignal? {
        let (options, timing) = (self.options, self.timing)
        return BlockingWork.detached("airloc-gpsd-watch") { stop in
            GPSDProvider.watch(options: options, timing: timing, stop: stop) { deliver($0) }
            deliver(nil)
        }
    }

    /// A POLL answer is used only when it is known to be current: the receiver's time of
    /// the fix and gpsd's clock agree within `staleAfter`. A receiver with a wrong clock
    /// (week rollover, a replayed log) costs one report interval instead.
    static func currentPolledFix(_ report: GPSDReport?, at pollTime: Date?, staleAfter: Double) -> Fix? {
        guard let report, var fix = report.fix, let fixTime = report.time, let pollTime,
            abs(pollTime.timeIntervalSince(fixTime)) <= staleAfter
        else { return nil }
        fix.receivedAt = Date().addingTimeInterval(-max(0, pollTime.timeIntervalSince(fixTime)))
        return fix
    }

    /// The one-shot loop, on its own thread.
    static func firstFix(
        options: Options, seconds: Double, staleAfter: Double, stop: StopSignal, seen: SeenMode = SeenMode()
    ) -> Result<
        Fix, any Error
    > {
        let deadline = Date().addingTimeInterval(seconds)
        let connection: GPSDConnection
        switch watching(options, poll: true) {
        case .success(let opened): connection = opened
        case .failure(let error): return .failure(error)
        }
        var lastMode = FixMode.notSeen
        // The first whole epoch with a fix, not its first sentence's half of it.
        var epoch = GPSDEpoch()
        func completedFix(_ reports: [GPSDReport]) -> Fix? {
            guard var fix = reports.lazy.compactMap(\.fix).first else { return nil }
            fix.receivedAt = Date()
            return fix
        }
        while !stop.isSet {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { break }
            switch connection.next(wait: remaining, stop: stop) {
            case .idle:
                continue
            case .closed:
                if let fix = completedFix(epoch.flush()) { return .success(fix) }
                return .failure(GPSDError.wentAway(host: options.host, port: options.port))
            case .message(.satellites(let used)):
                epoch.satellites(used: used)
            case .message(.position(let report)):
                if report.hasMode {
                    lastMode = report.mode
                    seen.mode = report.mode
                }
                if let fix = completedFix(epoch.received(report)) { return .success(fix) }
            case .message(.poll(let report, let at)):
                if let fix = currentPolledFix(report, at: at, staleAfter: staleAfter) { return .success(fix) }
                // gpsd's current mode, known at once: a timeout can then say "no fix"
                // rather than "no report" even if no TPV arrives before the deadline.
                if let report, report.hasMode {
                    lastMode = report.mode
                    seen.mode = report.mode
                }
            case .message(.error(let message)):
                return .failure(GPSDError.protocolError(message))
            case .message:
                continue
            }
        }
        if stop.isSet && deadline.timeIntervalSinceNow > 0 { return .failure(CancellationError()) }
        // The deadline came in the middle of an epoch: what it has is still a fix.
        if let fix = completedFix(epoch.flush()) { return .success(fix) }
        return .failure(GPSDError.noFix(seconds: seconds, lastMode: lastMode))
    }

    /// A connection that is watching (and has asked for the current fix when `poll`).
    static func watching(_ options: Options, poll: Bool) -> Result<GPSDConnection, GPSDError> {
        let connection: GPSDConnection
        do {
            connection = try GPSDConnection(host: options.host, port: options.port)
        } catch {
            return .failure(error)
        }
        guard connection.watch(), !poll || connection.poll() else {
            return .failure(.wentAway(host: options.host, port: options.port))
        }
        return .success(connection)
    }

    /// The watch loop, on its own thread, until `stop` is set.
    static func watch(
        options: Options, timing: GPSDTiming, stop: StopSignal, emit: (LocationUpdate) -> Void
    ) {
        var tracker = GPSDTracker(timing: timing)
        /// Does what the tracker says; returns the reconnect delay when it asks for one.
        func perform(_ action: GPSDTracker.Action) -> Double? {
            switch action {
            case .none: return nil
            case .emit(let update):
                emit(update)
                return nil
            case .reconnect(let update, let delay):
                emit(update)
                return delay
            }
        }
        while !stop.isSet {
            let delay: Double?
            switch watching(options, poll: true) {
            case .success(let connection):
                _ = perform(tracker.connected(at: Date()))
                delay = follow(connection, tracker: &tracker, options: options, stop: stop, perform: perform)
            case .failure(let error):
                delay = perform(tracker.connectionFailed(reason: error.description, at: Date()))
            }
            // The back-off, woken for the tracker's deadlines so stale and lost are still
            // reported on time; a stop ends the wait at once.
            let until = Date().addingTimeInterval(delay ?? 0)
            while !stop.isSet && Date() < until {
                let next = min(until, tracker.nextCheck ?? until)
                stop.wait(seconds: max(0.001, next.timeIntervalSinceNow))
                _ = perform(tracker.tick(at: Date()))
            }
        }
    }

    /// Reads one connection until it closes (returns the reconnect delay) or `stop`.
    private static func follow(
        _ connection: GPSDConnection, tracker: inout GPSDTracker, options: Options, stop: StopSignal,
        perform: (GPSDTracker.Action) -> Double?
    ) -> Double? {
        var epoch = GPSDEpoch()
        while !stop.isSet {
            // Until the tracker's next deadline (stale, lost, the first fix overdue) at most.
            let wait = tracker.nextCheck.map { $0.timeIntervalSinceNow } ?? .infinity
            switch connection.next(wait: wait, stop: stop) {
            case .closed:
                for report in epoch.flush() { _ = perform(tracker.received(report, at: Date())) }
                let reason = "gpsd at \(options.host):\(options.port) closed the connection"
                return perform(tracker.connectionClosed(reason: reason, at: Date()))
            case .message(.position(let report)):
                for joined in epoch.received(report) { _ = perform(tracker.received(joined, at: Date())) }
            case .message(.satellites(let used)):
                epoch.satellites(used: used)
                _ = perform(tracker.tick(at: Date()))
            case .message(.poll(let report, let at)):
                if let report, currentPolledFix(report, at: at, staleAfter: tracker.timing.staleAfter) != nil {
                    epoch.passedOn(time: report.time)
                    _ = perform(tracker.received(report, at: Date()))
                }
            case .idle, .message:
                _ = perform(tracker.tick(at: Date()))
            }
        }
        return nil
    }
}

/// The fix mode gpsd last reported, shared with the watchdog so that its timeout error
/// says what the receiver said even when the reader thread was not scheduled in time.
final class SeenMode: Sendable {
    private let value = Atomic<Int>(FixMode.notSeen.rawValue)
    var mode: FixMode {
        get { FixMode(rawValue: value.load(ordering: .relaxed)) ?? .notSeen }
        set { value.store(newValue.rawValue, ordering: .relaxed) }
    }
}
