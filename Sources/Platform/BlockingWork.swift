import Dispatch
import Foundation

/// The one bridge from a blocking C call to async code: libgps, libcurl, libmosquitto's
/// network loop, libpq and a serial port each block a thread while they wait, and a
/// blocked cooperative thread (there are two on a Pi-sized machine) would stall every
/// task of the program.
///
/// Contract:
/// - ``run(_:deadline:late:interrupt:_:)`` runs the body on a thread of its own (a worker
///   of ``WorkerPool``, kept between calls) and
///   resumes the caller with its result, exactly once, without holding a cooperative
///   thread meanwhile.
/// - When the calling task is cancelled, the body's ``StopSignal`` is set and `interrupt`
///   is called (to break a blocking call the signal cannot reach, such as a transfer in
///   libcurl); the body ends in its own time and its result is still what the caller gets.
/// - With a `deadline`, the caller is released after it with `late()` even if the body is
///   stuck where nothing reaches it (a connect() in libgps): the watchdog. The body's own
///   result, when it comes, is then dropped; the signal is set so that it stops.
/// - ``stream(_:_:)`` runs a producer on a thread of its own for as long as the stream is
///   consumed: ending the consumption (or cancelling the consuming task) sets the signal.
/// - ``detached(_:_:)`` runs a producer on a thread of its own that hands what it makes
///   on itself (a callback on that thread, no task woken in between) until it returns or
///   the signal it returns is set.
public enum BlockingWork {
    /// Runs `body` on a thread of its own and returns its result (see the type's contract).
    public static func run<T: Sendable>(
        _ name: String, deadline: Duration? = nil, late: (@Sendable () -> T)? = nil,
        interrupt: (@Sendable () -> Void)? = nil, _ body: @escaping @Sendable (StopSignal) -> T
    ) async -> T {
        let stop = StopSignal()
        let outcome = OnceCell<T>()
        start(name) { outcome.set(body(stop)) }
        // The watchdog is a timer cancelled with the body's end: a pending one would keep
        // what it holds alive for the whole deadline (thousands, in a drain of a backlog).
        var watchdog: DispatchSourceTimer?
        if let deadline, let late {
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.schedule(deadline: .now() + deadline.seconds)
            timer.setEventHandler { if outcome.set(late()) { stop.set() } }
            timer.resume()
            watchdog = timer
        }
        let result = await withTaskCancellationHandler {
            await outcome.value
        } onCancel: {
            stop.set()
            interrupt?()
        }
        watchdog?.cancel()
        return result
    }

    /// A stream of what `body` produces on a thread of its own; the body returns when it
    /// is done or when the signal is set, and the stream then ends.
    public static func stream<T: Sendable>(
        _ name: String, _ body: @escaping @Sendable (StopSignal, _ yield: (T) -> Void) -> Void
    ) -> AsyncStream<T> {
        let stop = StopSignal()
        return AsyncStream { continuation in
            continuation.onTermination = { _ in stop.set() }
            start(name) {
                body(stop) { continuation.yield($0) }
                continuation.finish()
            }
        }
    }

    /// Runs `body` on a thread of its own until it returns or the returned signal is set.
    public static func detached(_ name: String, _ body: @escaping @Sendable (StopSignal) -> Void) -> StopSignal {
        let stop = StopSignal()
        start(name) { body(stop) }
        return stop
    }

    /// A thread of its own, named for `ps -L` and for a debugger.
    /// On a worker of ``WorkerPool``: an idle one when there is one (no thread per call).
    private static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        WorkerPool.shared.run(name, body)
    }
}
