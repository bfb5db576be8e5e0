import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A program left running while the test works beside it (the logger), whose output is
/// read as it comes, and which the test signals and waits for.
///
/// Contract: stdout and stderr are drained continuously on threads of their own (a full
/// pipe never stalls the child); ``output`` is what arrived so far; ``wait(timeout:)``
/// kills the child with SIGKILL when it outlives the timeout, so no test hangs on it.
public final class RunningProcess: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()
    private let drained = DispatchGroup()

    public init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let stdout = Pipe.privateToThisProcess()
        let stderr = Pipe.privateToThisProcess()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        for (pipe, isOut) in [(stdout, true), (stderr, false)] {
            drained.enter()
            let handle = pipe.fileHandleForReading
            Thread {
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    self.lock.withLock { if isOut { self.out.append(chunk) } else { self.err.append(chunk) } }
                }
                self.drained.leave()
            }.start()
        }
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }
    public var output: String { lock.withLock { String(decoding: out, as: UTF8.self) } }
    public var errors: String { lock.withLock { String(decoding: err, as: UTF8.self) } }

    public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the exit (killing the child after `timeout`) and returns what it printed.
    public func wait(timeout: TimeInterval = 120) async throws -> ChildProcess.Result {
        try await offPool {
            let deadline = Date().addingTimeInterval(timeout)
            var timedOut = false
            while self.process.isRunning {
                if Date() > deadline {
                    timedOut = true
                    kill(self.process.processIdentifier, SIGKILL)
                    break
                }
                usleep(10_000)
            }
            self.process.waitUntilExit()
            _ = self.drained.wait(timeout: .now() + 120)
            return ChildProcess.Result(
                status: self.process.terminationStatus, stdout: self.output, stderr: self.errors, timedOut: timedOut)
        }
    }
}
