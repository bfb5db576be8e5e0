import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program to completion with a time bound and captures its output.
///
/// Both pipes are drained on background threads while the process runs (reading only
/// after exit deadlocks once a pipe buffer fills); past `timeout` the process is killed
/// and `timedOut` is set, so a hanging airloc fails its test instead of hanging it.
public struct ChildProcess {
    public struct Result: Sendable, CustomStringConvertible {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        public var timedOut: Bool

        public var description: String {
            "exit \(status)\(timedOut ? " (killed after timeout)" : "")\n--- stdout\n\(stdout)--- stderr\n\(stderr)"
        }
    }

    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String], stdin: String? = nil,
        timeout: TimeInterval = 120
    ) async throws -> Result {
        try await offPool {
            try runBlocking(executable, arguments, environment: environment, stdin: stdin, timeout: timeout)
        }
    }

    static func runBlocking(
        _ executable: String, _ arguments: [String], environment: [String: String], stdin: String? = nil,
        timeout: TimeInterval = 120, stacksOnTimeout: Bool = true
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let out = Pipe.privateToThisProcess()
        let err = Pipe.privateToThisProcess()
        let input = Pipe.privateToThisProcess()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        let collected = Collected()
        let group = DispatchGroup()
        for (pipe, isOut) in [(out, true), (err, false)] {
            group.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.set(data, isOut: isOut)
                group.leave()
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        var stacks = ""
        while process.isRunning {
            if Date() > deadline {
                timedOut = true
                if stacksOnTimeout { stacks = threadStacks(of: process.processIdentifier) }
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(10_000)
        }
        process.waitUntilExit()
        // The readers finish when the pipes close, at the child's exit; on a loaded
        // 2-core machine their threads can take seconds to be scheduled (a 5 s wait here
        // once returned an empty stderr). Only a grandchild keeping a pipe open reaches this.
        _ = group.wait(timeout: .now() + 120)
        return Result(
            status: process.terminationStatus, stdout: collected.text(isOut: true),
            stderr: collected.text(isOut: false) + stacks, timedOut: timedOut)
    }

    /// Every thread's stack of a hung process, by gdb when it is installed: a hang that
    /// only a loaded CI machine shows is otherwise a bare "killed after timeout".
    static func threadStacks(of pid: Int32) -> String {
        guard let gdb = ExternalTool.path(of: "gdb"),
            let traced = try? runBlocking(
                gdb, ["-batch", "-nx", "-p", "\(pid)", "-ex", "thread apply all bt 30"],
                environment: ProcessInfo.processInfo.environment, timeout: 60, stacksOnTimeout: false)
        else { return "" }
        let threads = traced.stdout.split(separator: "\n").filter { $0.hasPrefix("#") || $0.hasPrefix("Thread ") }
        return "--- threads of the hung process (gdb)\n" + threads.joined(separator: "\n") + "\n"
    }

    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var out = Data()
        private var err = Data()
        func set(_ data: Data, isOut: Bool) {
            lock.lock()
            if isOut { out = data } else { err = data }
            lock.unlock()
        }
        func text(isOut: Bool) -> String {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: isOut ? out : err, as: UTF8.self)
        }
    }
}
