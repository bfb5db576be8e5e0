/// sysexits(3) codes, the contract between airloc and the scripts that call it
/// (documented in docs/cli.md).
package enum ExitCode: Int32, Sendable, CaseIterable {
    case ok = 0
    /// Esc in an interactive picker / a negative answer.
    case cancelled = 1
    case usage = 64
    case dataError = 65
    case noInput = 66
    case unavailable = 69
    case software = 70
    case osFile = 72
    case ioError = 74
    case tempFail = 75
    case noPermission = 77
    case config = 78
    /// Ctrl-C in an interactive picker (128 + SIGINT, as a shell reports it).
    case interrupted = 130
    /// SIGTERM ended a one-shot command (128 + SIGTERM), after it cleaned up.
    case terminated = 143

    /// A search found nothing (like grep's 1).
    package static var noMatch: ExitCode { .cancelled }
}

/// A failure the CLI reports to the user: one message, one exit code.
///
/// Contract: `message` is complete and actionable on its own (what failed, why, what to
/// do); usage errors also print the command's usage line and a pointer to `--help`.
package struct CLIError: Error, Sendable {
    package var code: ExitCode
    package var message: String
    /// For usage errors: the command whose usage to print ("now", or "" for airloc).
    package var usageOf: String?

    package static func usage(_ message: String, command: String) -> CLIError {
        CLIError(code: .usage, message: message, usageOf: command)
    }

    package static func config(_ message: String) -> CLIError {
        CLIError(code: .config, message: message, usageOf: nil)
    }

    package init(code: ExitCode, message: String, usageOf: String? = nil) {
        self.code = code
        self.message = message
        self.usageOf = usageOf
    }
}
