import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `handler` once when one of `signals` arrives, instead of the default action
/// (termination), so a stream can end cleanly and stop its reader thread.
public final class SignalWatch: Sendable {
    /// Dispatch's sources: not Sendable themselves, so only ever touched under the mutex.
    private let sources: Lock<[any DispatchSourceSignal]>

    /// Runs `handler` once for any of `signals`, which no longer terminate the process.
    public convenience init(signals: [Int32], handler: @escaping @Sendable () -> Void) {
        self.init(signals: signals, numbered: { _ in handler() })
    }

    /// Runs `handler` with the signal's number for any of `signals`.
    public init(signals: [Int32], numbered handler: @escaping @Sendable (Int32) -> Void) {
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            sources.append(source)
        }
        self.sources = Lock(sources)
    }

    /// SIGINT (Ctrl-C) and SIGTERM (systemd, kill): the signals that ask a stream to end.
    public static func interruptAndTerminate(handler: @escaping @Sendable () -> Void) -> SignalWatch {
        SignalWatch(signals: [SIGINT, SIGTERM], handler: handler)
    }

    /// Runs `operation` until it ends or SIGINT/SIGTERM cancels it (a service's main loop:
    /// the operation sees the cancellation, finishes what it was writing and returns).
    public static func untilInterrupted<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T {
        await untilSignalled(operation).value
    }

    /// Runs `operation` until it ends or SIGINT/SIGTERM cancels it, and says which signal
    /// (nil when it ended on its own): a one-shot command that exits 128 + the signal, as a
    /// shell reports a command a signal stopped, after cleaning up.
    /// With `restoringDefaults`, SIGINT and SIGTERM end the process again once the operation
    /// is over (the rest of a one-shot command stays interruptible).
    public static func untilSignalled<T: Sendable>(
        restoringDefaults: Bool = false, _ operation: @escaping @Sendable () async -> T
    ) async -> (value: T, signal: Int32?) {
        // The handlers go in before the operation starts: a signal in between would end the
        // process the default way, without the operation's clean-up.
        let box = Lock<(task: Task<T, Never>?, signal: Int32?)>((nil, nil))
        let signals = SignalWatch(signals: [SIGINT, SIGTERM]) { number in
            box.withLock {
                $0.signal = $0.signal ?? number
                $0.task?.cancel()
            }
        }
        defer {
            signals.cancel()
            if restoringDefaults { for number in [SIGINT, SIGTERM] { signal(number, SIG_DFL) } }
        }
        let task = Task { await operation() }
        box.withLock {
            $0.task = task
            if $0.signal != nil { task.cancel() }
        }
        let value = await task.value
        return (value, box.withLock { $0.signal })
    }

    /// Runs `operation` (a step that must not be cut short, such as a sensor's reading,
    /// which puts the sensor to sleep when cancelled); a SIGINT or SIGTERM meanwhile cancels
    /// it, waits for its clean-up, says `notice` on stderr and then ends the process by the
    /// same signal, so a shell or systemd sees what it sent.
    public static func cleaningUp<T: Sendable>(notice: String, _ operation: @escaping @Sendable () async -> T) async
        -> T
    {
        let (value, received) = await untilSignalled(restoringDefaults: true, operation)
        if let received {
            FileHandle.standardError.write(Data(notice.utf8))
            signal(received, SIG_DFL)
            // Swift's worker threads block signals: unblock it on this one, so `raise`
            // delivers it here and now, the default way.
            var only = sigset_t()
            sigemptyset(&only)
            sigaddset(&only, received)
            pthread_sigmask(SIG_UNBLOCK, &only, nil)
            raise(received)
            exit(128 + received)
        }
        return value
    }

    /// Stops watching (the signals' handlers stay ignored).
    public func cancel() {
        sources.withLock { sources in for source in sources { source.cancel() } }
    }
}
