import Foundation
import Testing

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The spawner every fixture goes through: a child has nothing of the test process it was
/// not given, it dies with its owner, and a missed deadline is a failure that says where
/// the child stood.
struct ChildProcessTests {
    /// Runs `command` as a child spawned from a thread that has signals blocked, while
    /// the test process holds a descriptor open across exec (no FD_CLOEXEC) and ignores
    /// SIGPIPE; returns the child's pid and what it printed. Each command reports on its
    /// own process (/proc/self): a shell in between would change what is measured (dash
    /// blocks every signal around its forks).
    static func spawnedAmidLeaks(_ command: [String]) async throws -> (pid: Int32, result: ChildProcess.Result) {
        try await offPool {
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGTERM)
            sigaddset(&blocked, SIGUSR1)
            var previous = sigset_t()
            pthread_sigmask(SIG_BLOCK, &blocked, &previous)
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            let leaked = open("/dev/null", O_RDONLY)
            defer { close(leaked) }
            precondition(leaked > 2 && fcntl(leaked, F_GETFD) & FD_CLOEXEC == 0)
            let child = try ChildProcess(command[0], Array(command.dropFirst()), environment: [:], input: .pipe)
            return (child.pid, try child.waitBlocking(timeout: 120))
        }
    }

    @Test func aChildHasOnlyTheDescriptorsItWasGiven() async throws {
        let (_, result) = try await Self.spawnedAmidLeaks(["/bin/ls", "-l", "/proc/self/fd"])
        #expect(result.status == 0, "\(result)")
        // `ls` itself holds the directory it reads open: that one is not inherited.
        let descriptors = result.stdout.split(separator: "\n").filter { $0.contains(" -> ") }
            .filter { !$0.hasSuffix("/fd") }.compactMap {
                $0.split(separator: " -> ").first?.split(separator: " ").last
            }
        #expect(descriptors == ["0", "1", "2"], "\(result.stdout)")
    }

    @Test func aChildHasNoSignalBlockedOrIgnored() async throws {
        let (_, result) = try await Self.spawnedAmidLeaks(["/bin/grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status"])
        #expect(result.status == 0, "\(result)")
        // Signals 1-31; 32 and 33 are glibc's own (thread cancellation, set*id), which no
        // program can handle or be stopped by, and which posix_spawn leaves alone.
        func standard(_ name: String) -> UInt64? {
            result.stdout.split(separator: "\n").first { $0.hasPrefix(name + ":\t") }
                .flatMap { UInt64($0.dropFirst(name.count + 2), radix: 16) }.map { $0 & 0x7FFF_FFFF }
        }
        #expect(standard("SigBlk") == 0, "no signal blocked: \(result.stdout)")
        #expect(standard("SigIgn") == 0, "no signal ignored (the test process ignores SIGPIPE): \(result.stdout)")
    }

    @Test func aChildLeadsAProcessGroupOfItsOwn() async throws {
        let (pid, result) = try await Self.spawnedAmidLeaks(["/bin/cat", "/proc/self/stat"])
        let group = result.stdout.split(separator: ")").last?.split(separator: " ").dropFirst(2).first
        #expect(group == "\(pid)"[...], "\(result.stdout)")
    }

    /// A test that drops its child (it threw, or forgot) leaves nothing running: the
    /// child's whole group goes, a grandchild too.
    @Test func droppingAChildKillsItsWholeGroup() async throws {
        var child: ChildProcess? = try ChildProcess(
            "/bin/sh", ["-c", "sleep 600 & echo $!; wait"], environment: ["PATH": "/usr/bin:/bin"])
        try await child!.waitForOutput("the grandchild's pid") { $0.hasSuffix("\n") }
        let grandchild = try #require(Int32(child!.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(Self.isAlive(grandchild))
        child = nil
        try await Poll.until("the grandchild \(grandchild) to die with its group") { !Self.isAlive(grandchild) }
    }

    /// A child that outlives its deadline is killed, and the failure names the command,
    /// its arguments and what it printed last.
    @Test func aMissedDeadlineIsAFailureThatNamesTheCommandAndItsLastOutput() async throws {
        let child = try ChildProcess(
            "/bin/sh", ["-c", "echo almost there; echo stuck >&2; exec sleep 600"],
            environment: ["PATH": "/usr/bin:/bin"])
        try await child.waitForOutput("its first line") { $0.contains("almost there\n") }
        let error = await #expect(throws: MissedDeadline.self) { _ = try await child.wait(timeout: 1) }
        let text = error?.description ?? ""
        #expect(text.contains("/bin/sh -c 'echo almost there; echo stuck >&2; exec sleep 600'"), "\(text)")
        #expect(
            text.contains("no exit within 1 s") && text.contains("almost there") && text.contains("stuck"), "\(text)")
        try await Poll.until("the killed child to be reaped") { !child.isRunning }
    }

    /// Waiting for output that never comes fails when the child ends, at once, not at the
    /// deadline.
    @Test func waitingForOutputFromAChildThatEndedFailsAtOnce() async throws {
        let child = try ChildProcess("/bin/sh", ["-c", "echo something else; exit 3"], environment: [:])
        let error = await #expect(throws: MissedDeadline.self) {
            try await child.waitForOutput("a line it never prints", timeout: 600) { $0.contains("ready") }
        }
        #expect(error?.description.contains("it exited with 3 first") == true, "\(String(describing: error))")
    }

    /// Alive and not a zombie (a container's PID 1 may never reap an orphan).
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        let state = stat.split(separator: ")").last?.split(separator: " ").first
        return state != "Z" && state != "X"
    }
}
