import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real terminal for one test: a tmux server of its own (own socket), one 80×24 window
/// running a shell script, with keys sent and the screen captured as a user sees it.
///
/// Contract: `start` returns a session whose script is running, or throws; `stop()`
/// kills the server. The script's environment is exactly `environment` (written into
/// the script), so nothing of the test runner's own terminal leaks in.
public final class TerminalSession: @unchecked Sendable {
    public let directory: TemporaryDirectory
    private let socket: String
    private let tmux: String

    private init(directory: TemporaryDirectory, socket: String, tmux: String) {
        self.directory = directory
        self.socket = socket
        self.tmux = tmux
    }

    /// Runs `script` (bash) in a new 80×24 (or given size) terminal.
    public static func start(
        script: String, environment: [String: String], width: Int = 80, height: Int = 24
    ) async throws -> TerminalSession {
        guard let tmux = ExternalTool.path(of: "tmux") else {
            throw FixtureError("tmux is needed to drive the picker but is not installed (make test installs it)")
        }
        let directory = try TemporaryDirectory()
        let exports = environment.sorted { $0.key < $1.key }.map { "export \($0.key)='\($0.value)'" }
        let file = directory.file("session.sh")
        try (["cd '\(directory.url.path)'"] + exports + [script]).joined(separator: "\n").write(
            to: file, atomically: true, encoding: .utf8)
        let session = TerminalSession(directory: directory, socket: "airloc-\(UUID().uuidString.prefix(8))", tmux: tmux)
        // The server outlives this call and inherits every descriptor of the client —
        // also the one Foundation's Process watches to notice the exit, which would
        // then never come. So: posix_spawn with nothing but /dev/null, and waitpid.
        let arguments = [
            tmux, "-L", session.socket, "-f", "/dev/null", "new-session", "-d", "-x", "\(width)", "-y", "\(height)",
            "-s", "main",
            "env -i HOME='\(directory.url.path)' TERM=xterm-256color PATH=/usr/bin:/bin bash '\(file.path)'",
        ]
        let status = try await offPool {
            try spawnAndWait(arguments, environment: ["PATH=/usr/bin:/bin", "TERM=xterm-256color"])
        }
        guard status == 0 else {
            directory.remove()
            throw FixtureError("tmux did not start (exit \(status))")
        }
        return session
    }

    /// Runs a tmux command against this session's server.
    @discardableResult
    public func tmux(_ arguments: [String]) async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            tmux, ["-L", socket] + arguments, environment: ["PATH": "/usr/bin:/bin", "TERM": "xterm-256color"],
            timeout: 60)
    }

    /// Types `text` literally (no key names).
    public func type(_ text: String) async throws { try await tmux(["send-keys", "-t", "main", "-l", text]) }

    /// Presses keys by tmux name: "Enter", "Escape", "BSpace", "Up", "C-u", "C-c".
    public func press(_ keys: String...) async throws { try await tmux(["send-keys", "-t", "main"] + keys) }

    /// The screen as plain text.
    public func screen() async throws -> String { try await tmux(["capture-pane", "-p", "-t", "main"]).stdout }

    /// Waits until the screen shows `text`; returns the screen, or throws with it.
    @discardableResult
    public func waitFor(_ text: String, timeout: TimeInterval = 60) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try await screen()
            if last.contains(text) { return last }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw FixtureError("the screen never showed '\(text)'; it shows:\n\(last)")
    }

    /// Waits until the script wrote `name` in the session directory; returns its text.
    public func waitForFile(_ name: String, timeout: TimeInterval = 60) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        let file = directory.file(name)
        while Date() < deadline {
            if let text = try? String(contentsOf: file, encoding: .utf8), text.hasSuffix("\n") { return text }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw FixtureError("the script never wrote \(name); the screen shows:\n\(try await screen())")
    }

    public func stop() {
        // A few milliseconds; kills the script, airloc and the server with them.
        _ = try? spawnAndWait([tmux, "-L", socket, "kill-server"], environment: ["PATH=/usr/bin:/bin"])
        directory.remove()
    }
}

/// Runs `arguments` (the first is the executable's path) with stdin, stdout and stderr
/// on /dev/null and only those descriptors; returns its exit status.
func spawnAndWait(_ arguments: [String], environment: [String]) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for descriptor in Int32(0)...2 {
        posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    // Everything else is closed in the child (the test runner has pipes and sockets open;
    // glibc ignores a close action for a descriptor that is gone by then).
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for descriptor in open.compactMap(Int32.init) where descriptor > 2 {
        posix_spawn_file_actions_addclose(&actions, descriptor)
    }
    // The spawning thread may be a dispatch worker with signals blocked, and blocked or
    // ignored signals are inherited: the script would then never die of SIGHUP.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = environment.map { strdup($0) } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
    guard spawned == 0 else { throw FixtureError("cannot start \(arguments[0]): error \(spawned)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}
