import CSpawn
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `posix_spawn` as ``ChildProcess`` uses it: the child gets exactly the descriptors it is
/// handed, an empty signal mask, default handlers and a process group of its own.
enum Spawn {
    struct Started {
        var pid: pid_t
        /// The write end of the child's stdin, or -1.
        var input: Int32
        /// The read ends of the child's stdout and stderr (none when not captured).
        var outputs: [Int32]
    }

    /// A pipe whose ends are closed on exec in every other child (`O_CLOEXEC`); a child
    /// is handed an end as stdin/stdout/stderr by `dup2`, which clears the flag there.
    static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard airloc_pipe_cloexec(&ends) == 0 else {
            throw FixtureError("cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        return (ends[0], ends[1])
    }

    static func start(_ command: [String], environment: [String], pipeInput: Bool, captureOutput: Bool) throws
        -> Started
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        var input: Int32 = -1
        var outputs: [Int32] = []
        if pipeInput {
            let ends = try pipe()
            input = ends.write
            parentEnds.append(ends.write)
            childEnds.append(ends.read)
            posix_spawn_file_actions_adddup2(&actions, ends.read, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        for descriptor: Int32 in [1, 2] {
            if captureOutput {
                let ends = try pipe()
                outputs.append(ends.read)
                parentEnds.append(ends.read)
                childEnds.append(ends.write)
                posix_spawn_file_actions_adddup2(&actions, ends.write, descriptor)
            } else {
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
            }
        }
        // Nothing else of the test process reaches the child: not another test's pipes,
        // not the sockets of servers started beside it.
        guard airloc_spawn_addclosefrom(&actions, 3) == 0 else {
            throw FixtureError("posix_spawn cannot close descriptors")
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let failed = posix_spawn(&pid, command[0], &actions, &attributes, argv, envp)
        childEnds.forEach { close($0) }
        guard failed == 0 else {
            parentEnds.forEach { close($0) }
            throw FixtureError("cannot start \(command[0]): \(String(cString: strerror(failed)))")
        }
        return Started(pid: pid, input: input, outputs: outputs)
    }

    /// The exit status as a shell gives it: the code, or 128 + the signal.
    static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}

/// What one child's threads share with the test: its output so far, its exit status, its
/// stdin; every change is announced on one condition, which the waits sleep on.
final class ChildState: @unchecked Sendable {
    let command: [String]
    let pid: pid_t
    private let condition = NSCondition()
    private var out = Data()
    private var err = Data()
    private var openOutputs: [Int32]
    private var input: Int32
    private var status: Int32?

    init(command: [String], pid: pid_t, input: Int32, outputs: [Int32]) {
        self.command = command
        self.pid = pid
        self.input = input
        openOutputs = outputs
    }

    deinit {
        if input >= 0 { close(input) }
    }

    /// One thread drains stdout and stderr; one waits for the exit. Neither holds the
    /// ``ChildProcess``, so dropping it kills the child even while they run.
    func startThreads() {
        let outputs = openOutputs
        if !outputs.isEmpty { Thread { self.drain(outputs) }.start() }
        Thread { self.reap() }.start()
    }

    private func drain(_ descriptors: [Int32]) {
        var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while polled.contains(where: { $0.fd >= 0 }) {
            guard poll(&polled, nfds_t(polled.count), -1) >= 0 || errno == EINTR else { break }
            for index in polled.indices where polled[index].fd >= 0 && polled[index].revents != 0 {
                let count = read(polled[index].fd, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                condition.lock()
                if count > 0 {
                    if index == 0 {
                        out.append(contentsOf: buffer[0..<count])
                    } else {
                        err.append(contentsOf: buffer[0..<count])
                    }
                } else {
                    close(polled[index].fd)
                    openOutputs.removeAll { $0 == polled[index].fd }
                    polled[index].fd = -1
                }
                condition.broadcast()
                condition.unlock()
            }
        }
    }

    private func reap() {
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        condition.lock()
        status = Spawn.decode(raw)
        condition.broadcast()
        condition.unlock()
    }

    var exitStatus: Int32? { condition.withLock { status } }

    func text(stdout: Bool) -> String {
        condition.withLock { String(decoding: stdout ? out : err, as: UTF8.self) }
    }

    func signal(_ number: Int32) {
        condition.withLock { if status == nil { _ = kill(pid, number) } }
    }

    /// Waits for the exit and the end of output; nil when both came, else what did not.
    func waitForEnd(until deadline: Date) -> String? {
        condition.lock()
        defer { condition.unlock() }
        while status == nil || !openOutputs.isEmpty {
            guard condition.wait(until: deadline) else {
                return status == nil ? "no exit" : "exited, but a descendant kept its output open"
            }
        }
        return nil
    }

    /// Waits until stdout satisfies `satisfied`; nil when it did, else why not.
    func waitForOutput(until deadline: Date, _ satisfied: (String) -> Bool) -> String? {
        condition.lock()
        defer { condition.unlock() }
        while !satisfied(String(decoding: out, as: UTF8.self)) {
            if status != nil && openOutputs.isEmpty { return "it exited with \(status!) first" }
            guard condition.wait(until: deadline) else { return "not seen" }
        }
        return nil
    }

    func writeInput(_ data: Data) -> Bool {
        let descriptor = condition.withLock { input }
        guard descriptor >= 0 else { return false }
        return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }

    func closeInput() {
        condition.lock()
        let descriptor = input
        input = -1
        condition.unlock()
        if descriptor >= 0 { close(descriptor) }
    }
}
