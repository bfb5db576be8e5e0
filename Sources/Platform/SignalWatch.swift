import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `handler` once when one of `signals` arrives, instead of the default action
/// (termination), so a stream can end cleanly and stop its reader thread.
public final class SignalWatch: @unchecked Sendable {
    private var sources: [any DispatchSourceSignal] = []

    /// Runs `handler` once for any of `signals`, which no longer terminate the process.
    public init(signals: [Int32], handler: @escaping @Sendable () -> Void) {
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            sources.append(source)
        }
    }

    /// SIGINT (Ctrl-C) and SIGTERM (systemd, kill): the signals that ask a stream to end.
    public static func interruptAndTerminate(handler: @escaping @Sendable () -> Void) -> SignalWatch {
        SignalWatch(signals: [SIGINT, SIGTERM], handler: handler)
    }

    /// Runs `operation` until it ends or SIGINT/SIGTERM cancels it (a service's main loop:
    /// the operation sees the cancellation, finishes what it was writing and returns).
    public static func untilInterrupted<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T {
        let task = Task { await operation() }
        let signals = interruptAndTerminate { task.cancel() }
        defer { signals.cancel() }
        return await task.value
    }

    /// Stops watching (the signals' handlers stay ignored).
    public func cancel() {
        for source in sources { source.cancel() }
    }
}
