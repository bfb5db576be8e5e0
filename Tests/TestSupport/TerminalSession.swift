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
        // The server outlives this call (tmux daemonizes it): it gets nothing but
        // /dev/null, so it holds no pipe of the test open.
        let arguments = [
            tmux, "-L", session.socket, "-f", "/dev/null", "new-session", "-d", "-x", "\(width)", "-y", "\(height)",
            "-s", "main",
            "env -i HOME='\(directory.url.path)' TERM=xterm-256color PATH=/usr/bin:/bin bash '\(file.path)'",
        ]
        let status = try await offPool {
            try detached(arguments, environment: ["PATH": "/usr/bin:/bin", "TERM": "xterm-256color"])
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
        let last = Shown()
        do {
            try await Poll.until("the screen to show '\(text)'", deadline: .seconds(timeout)) {
                last.screen = try await self.screen()
                return last.screen.contains(text)
            }
        } catch {
            throw FixtureError("the screen never showed '\(text)'; it shows:\n\(last.screen)")
        }
        return last.screen
    }

    /// Waits until the script wrote `name` in the session directory; returns its text.
    public func waitForFile(_ name: String, timeout: TimeInterval = 60) async throws -> String {
        let file = directory.file(name)
        let read: @Sendable () -> String? = { try? String(contentsOf: file, encoding: .utf8) }
        do {
            try await Poll.until("\(name) to be written", deadline: .seconds(timeout)) {
                read()?.hasSuffix("\n") == true
            }
        } catch {
            throw FixtureError("the script never wrote \(name); the screen shows:\n\(try await screen())")
        }
        return read() ?? ""
    }

    /// The last screen a wait saw (the wait's condition runs in a closure).
    private final class Shown: @unchecked Sendable {
        var screen = ""
    }

    public func stop() {
        // A few milliseconds; kills the script, airloc and the server with them.
        _ = try? detached([tmux, "-L", socket, "kill-server"], environment: ["PATH": "/usr/bin:/bin"])
        directory.remove()
    }
}

/// Runs `arguments` (the first is the executable's path) with stdin, stdout and stderr
/// on /dev/null, to its end (with a deadline); returns its exit status.
func detached(_ arguments: [String], environment: [String: String]) throws -> Int32 {
    let child = try ChildProcess(
        arguments[0], Array(arguments.dropFirst()), environment: environment, captureOutput: false)
    return try child.waitBlocking(timeout: 60).status
}
