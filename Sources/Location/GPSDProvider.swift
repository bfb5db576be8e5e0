import Foundation
import Geo
import Synchronization

/// Reads the device's position from gpsd through libgps.
///
/// Contract: ``currentFix(timeout:)`` connects, watches and returns the first valid fix
/// (mode 2D/3D with a finite position), or throws a ``GPSDError`` within the timeout.
/// libgps blocks, so the loop runs on a dedicated thread, never on Swift's cooperative
/// pool; the caller is released at the deadline even if libgps is stuck in connect().
public struct GPSDProvider: LocationProvider {
    /// Where gpsd listens and how long to wait.
    public struct Options: Sendable, Equatable {
        public var host: String
        public var port: Int

        public init(host: String = "localhost", port: Int = 2947) {
            self.host = host
            self.port = port
        }
    }

    public let name = "gpsd"
    public let senses = true
    public var options: Options

    public init(options: Options = Options()) { self.options = options }

    public func currentFix(timeout: Duration) async throws -> Fix {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let options = self.options
        let stop = StopFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Fix, any Error>) in
                let once = ResumeOnce(continuation)
                let thread = Thread {
                    once.resume(with: GPSDProvider.firstFix(options: options, seconds: seconds, stop: stop))
                }
                thread.name = "airloc-gpsd"
                thread.start()
                // The watchdog: even a connect() that libgps cannot interrupt does not hold
                // the caller past the deadline.
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds + 0.5) {
                    stop.set()
                    once.resume(with: .failure(GPSDError.noFix(seconds: seconds, lastMode: .notSeen)))
                }
            }
        } onCancel: {
            stop.set()
        }
    }

    /// The blocking loop, on its own thread.
    static func firstFix(options: Options, seconds: Double, stop: StopFlag) -> Result<Fix, any Error> {
        let deadline = Date().addingTimeInterval(seconds)
        let connection: GPSDConnection
        do {
            connection = try GPSDConnection(host: options.host, port: options.port)
        } catch {
            return .failure(error)
        }
        guard connection.watch() else {
            return .failure(GPSDError.wentAway(host: options.host, port: options.port))
        }
        var lastMode = FixMode.notSeen
        while !stop.isSet {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { break }
            let wait = Int32(min(remaining, 0.25) * 1_000_000)
            switch connection.next(waitMicroseconds: max(1000, wait)) {
            case .idle:
                continue
            case .closed:
                return .failure(GPSDError.wentAway(host: options.host, port: options.port))
            case .report(let report):
                if report.hasMode { lastMode = report.mode }
                if let fix = report.fix { return .success(fix) }
            }
        }
        if stop.isSet && deadline.timeIntervalSinceNow > 0 { return .failure(CancellationError()) }
        return .failure(GPSDError.noFix(seconds: seconds, lastMode: lastMode))
    }
}

/// A flag one thread sets and others poll.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}

/// Resumes a continuation exactly once, whichever thread gets there first.
final class ResumeOnce<T: Sendable>: Sendable {
    private let state: Mutex<CheckedContinuation<T, any Error>?>

    init(_ continuation: CheckedContinuation<T, any Error>) { state = Mutex(continuation) }

    var isDone: Bool { state.withLock { $0 == nil } }

    func resume(with result: Result<T, any Error>) {
        let continuation = state.withLock { value -> CheckedContinuation<T, any Error>? in
            defer { value = nil }
            return value
        }
        continuation?.resume(with: result)
    }
}
