import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A program a test starts: the one way the test harness starts any child (doubles,
/// gpsfake and its gpsd, mosquitto, tmux, the schema checker, the airloc binary).
///
/// Contract:
/// - Started with `posix_spawn`: the child gets stdin (a pipe or /dev/null), stdout and
///   stderr (pipes, or /dev/null) and no other descriptor of the test process (every
///   other one is closed by `posix_spawn_file_actions_addclosefrom_np`), an empty signal
///   mask and default signal handlers (a test thread may have signals blocked, and a
///   child would inherit that), and a process group of its own.
/// - stdout and stderr are drained continuously on a thread of the child's own, so a
///   full pipe never stalls it; ``output`` and ``errors`` are what arrived so far.
/// - The test that starts a child owns it: when the object goes away (the test ended in
///   any way), its whole process group is killed; so is every group still alive when the
///   test process exits.
/// - Every wait has a deadline, and a missed deadline throws ``MissedDeadline`` naming
///   the command, its arguments and its last output, after killing the group: a child
///   that does not exit is a red test within the deadline, never a hang.
///
/// Foundation's `Process` is not used: it watches each child through a socket that a
/// child started meanwhile from another thread inherits (swift-corelibs-foundation
/// #4795), and the exit of the first then goes unseen for ever.
public final class ChildProcess: @unchecked Sendable {
    public struct Result: Sendable, CustomStringConvertible {
        /// The exit code, or 128 + the signal that ended the child (as a shell says).
        public var status: Int32
        public var stdout: String
        public var stderr: String

        public var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
    }

    /// What the child reads on stdin.
    public enum Input: Sendable {
        /// /dev/null: end of input at once.
        case none
        /// A pipe the test writes with ``write(_:)`` and ends with ``closeInput()``.
        case pipe
    }

    /// The executable and its arguments, as started.
    public let command: [String]
    /// The child's process id, which is also its process group's id.
    public let pid: pid_t
    private let state: ChildState
    /// Whether ``stop()`` signalled the group already.
    private let stopped = Mutex(false)

    /// Starts `executable` (a path) with `arguments` and exactly `environment`.
    /// `captureOutput: false` sends stdout and stderr to /dev/null.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String], input: Input = .none,
        captureOutput: Bool = true
    ) throws {
        command = [executable] + arguments
        let spawned = try Spawn.start(
            command, environment: environment.map { "\($0.key)=\($0.value)" }, pipeInput: input == .pipe,
            captureOutput: captureOutput)
        pid = spawned.pid
        state = ChildState(
            command: command, pid: spawned.pid, input: spawned.input, outputs: spawned.outputs)
        LiveGroups.shared.add(pid)
        state.startThreads()
    }

    deinit { stop() }

    public var isRunning: Bool { state.exitStatus == nil }
    public var output: String { state.text(stdout: true) }
    public var errors: String { state.text(stdout: false) }

    /// Sends `number` to the child itself (not its group), unless it has been reaped
    /// (its pid could then be another process's).
    public func signal(_ number: Int32) { state.signal(number) }

    /// Kills the child's whole process group (SIGKILL) without waiting: safe to call on
    /// Swift's cooperative threads, and more than once. Only the first call signals: the
    /// group's number is free again once it is empty, and with pid_max at 32768 a test
    /// suite reuses it within minutes, so a second kill (a `defer` after an explicit stop,
    /// then `deinit`) could reach another test's process group, its gpsfake say.
    public func stop() {
        guard
            stopped.withLock({ stopped in
                defer { stopped = true }; return !stopped
            })
        else { return }
        kill(-pid, SIGKILL)
        LiveGroups.shared.remove(pid)
    }

    /// Writes to the child's stdin pipe; false when the child no longer reads it.
    @discardableResult
    public func write(_ data: Data) -> Bool { state.writeInput(data) }

    /// Ends the child's stdin (end of file for it).
    public func closeInput() { state.closeInput() }

    /// SIGTERM, as systemd stops a service, and the exit awaited as ``wait(timeout:)`` does.
    public func terminate(timeout: TimeInterval = 120) async throws -> Result {
        signal(SIGTERM)
        return try await wait(timeout: timeout)
    }

    /// Waits for the exit and for the end of its output; a missed deadline kills the
    /// group and throws ``MissedDeadline`` (with every thread's stack when gdb exists).
    public func wait(timeout: TimeInterval = 120) async throws -> Result {
        try await offPool { try self.waitBlocking(timeout: timeout) }
    }

    func waitBlocking(timeout: TimeInterval, stacksOnTimeout: Bool = true) throws -> Result {
        let deadline = Date().addingTimeInterval(timeout)
        if let missed = state.waitForEnd(until: deadline) {
            let stacks = stacksOnTimeout && isRunning ? Self.threadStacks(of: pid) : ""
            stop()
            throw MissedDeadline(
                command: command, what: "\(missed) within \(Int(timeout)) s", stdout: output,
                stderr: errors + stacks)
        }
        return Result(status: state.exitStatus ?? -1, stdout: output, stderr: errors)
    }

    /// Waits until what the child printed on stdout satisfies `condition`; throws
    /// ``MissedDeadline`` when the deadline passes or the child ends first.
    public func waitForOutput(
        _ what: String, timeout: TimeInterval = 120, _ condition: @escaping @Sendable (String) -> Bool
    ) async throws {
        try await offPool { try self.waitForOutputBlocking(what, timeout: timeout, condition) }
    }

    func waitForOutputBlocking(_ what: String, timeout: TimeInterval, _ condition: (String) -> Bool) throws {
        guard let missed = state.waitForOutput(until: Date().addingTimeInterval(timeout), condition) else { return }
        throw MissedDeadline(
            command: command, what: "\(what) (\(missed)) within \(Int(timeout)) s", stdout: output, stderr: errors)
    }

    /// Runs a program to completion: `stdin` is written and closed, and the exit is
    /// awaited with the deadline of ``wait(timeout:)``.
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
        let child = try ChildProcess(
            executable, arguments, environment: environment, input: stdin == nil ? .none : .pipe)
        if let stdin {
            child.write(Data(stdin.utf8))
            child.closeInput()
        }
        return try child.waitBlocking(timeout: timeout, stacksOnTimeout: stacksOnTimeout)
    }

    /// Every thread's stack of a hung process, by gdb when it is installed: a hang that
    /// only a loaded CI machine shows is otherwise a bare "missed its deadline".
    static func threadStacks(of pid: Int32) -> String {
        guard let gdb = ExternalTool.path(of: "gdb"),
            let traced = try? runBlocking(
                gdb, ["-batch", "-nx", "-p", "\(pid)", "-ex", "thread apply all bt 30"],
                environment: ProcessInfo.processInfo.environment, timeout: 60, stacksOnTimeout: false)
        else { return "" }
        let threads = traced.stdout.split(separator: "\n").filter { $0.hasPrefix("#") || $0.hasPrefix("Thread ") }
        return "--- threads of the hung process (gdb)\n" + threads.joined(separator: "\n") + "\n"
    }
}

extension String {
    /// How often `text` stands in this string ("said once" is 1).
    public func occurrences(of text: String) -> Int { components(separatedBy: text).count - 1 }
}

/// A child that did not do what a test waited for in time: the command, its arguments
/// and the end of what it printed, so the failure says where it stood.
public struct MissedDeadline: Error, CustomStringConvertible {
    public var command: [String]
    public var what: String
    public var stdout: String
    public var stderr: String

    public var description: String {
        let shown = command.map { $0.contains(" ") || $0.isEmpty ? "'\($0)'" : $0 }.joined(separator: " ")
        func tail(_ text: String) -> String {
            text.count > 4000 ? "…" + String(text.suffix(4000)) : text
        }
        return "\(shown): missed its deadline: \(what); its group was killed\n--- last stdout\n\(tail(stdout))"
            + "\n--- last stderr\n\(tail(stderr))"
    }
}

/// The process groups of the children still alive, killed when the test process exits
/// (a test runner that ends, or crashes into exit, leaves no gpsd or broker behind).
final class LiveGroups: @unchecked Sendable {
    static let shared = LiveGroups()
    private let lock = NSLock()
    private var groups = Set<pid_t>()

    private init() {
        // A write to a child that has exited must fail with EPIPE, not end the test run.
        Glibc.signal(SIGPIPE, SIG_IGN)
        atexit { LiveGroups.shared.killAll() }
    }

    func add(_ group: pid_t) { lock.withLock { _ = groups.insert(group) } }
    func remove(_ group: pid_t) { lock.withLock { _ = groups.remove(group) } }

    func killAll() {
        for group in lock.withLock({ groups }) { kill(-group, SIGKILL) }
    }
}
