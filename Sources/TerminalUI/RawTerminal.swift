import Foundation
import Platform
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

// What a signal handler needs to give the terminal back. Globals, because a C signal
// handler cannot capture; atomics, because a handler may run on any thread at any moment.
private let terminalIsRaw = Atomic<Bool>(false)
private let windowChanged = Atomic<Bool>(false)
private let savedAttributes = SavedAttributes()

/// The terminal's settings before raw mode, in C memory a signal handler can hand to
/// `tcsetattr` without a lock or an allocation.
// @unchecked: it wraps C memory written only by enter(), before the flag that lets a
// handler read it is set, and read only after that flag is taken.
private final class SavedAttributes: @unchecked Sendable {
    let pointer = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    init() { pointer.initialize(to: termios()) }
}
/// Show the cursor, leave the alternate screen, reset attributes.
private let restoreBytes: [UInt8] = Array("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l".utf8)

/// Restores the terminal and dies of the same signal: SIGTERM, SIGHUP, SIGQUIT, and
/// the crashes (a trap in a renderer is SIGILL or SIGTRAP, a bad pointer SIGSEGV).
private func restoreAndReraise(_ signal: Int32) {
    if terminalIsRaw.exchange(false, ordering: .acquiring) {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, savedAttributes.pointer)
        restoreBytes.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
    Glibc.signal(signal, SIG_DFL)
    raise(signal)
}

private func noteWindowChange(_ signal: Int32) { windowChanged.store(true, ordering: .relaxed) }

/// The terminal in raw mode on the alternate screen, for the picker.
///
/// Contract: ``enter()`` saves the terminal's settings and switches to raw input (no
/// echo, no line editing, Ctrl-C as a byte) and the alternate screen, drawing on stderr
/// so stdout stays free for the result; ``leave()`` restores exactly the saved settings
/// and the main screen. The same restoration runs from signal handlers on SIGTERM,
/// SIGHUP, SIGQUIT and on crashes (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT),
/// so no exit path leaves a broken terminal behind.
public enum RawTerminal {
    /// The signals after which the terminal is restored before the default action.
    public static let fatalSignals = [SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT]

    /// False when stdin is not a terminal or its settings cannot be changed.
    public static func enter() -> Bool {
        var attributes = termios()
        guard tcgetattr(STDIN_FILENO, &attributes) == 0 else { return false }
        // Initialise the globals before any handler can need them.
        _ = restoreBytes.count
        savedAttributes.pointer.pointee = attributes
        attributes.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        attributes.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR | BRKINT | ISTRIP)
        // Output processing stays on: "\n" still moves to the start of the next line.
        withUnsafeMutableBytes(of: &attributes.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        for signal in fatalSignals { Glibc.signal(signal, restoreAndReraise) }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = noteWindowChange
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: the reader's poll wakes up at once
        sigaction(SIGWINCH, &action, nil)
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &attributes) == 0 else {
            for signal in fatalSignals { Glibc.signal(signal, SIG_DFL) }
            return false
        }
        terminalIsRaw.store(true, ordering: .releasing)
        StandardStream.write("\u{1B}[?1049h\u{1B}[H\u{1B}[2J", to: STDERR_FILENO)
        return true
    }

    /// Restores the terminal (from a signal handler too).
    public static func leave() {
        if terminalIsRaw.exchange(false, ordering: .acquiring) {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, savedAttributes.pointer)
            restoreBytes.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
        }
        for signal in fatalSignals { Glibc.signal(signal, SIG_DFL) }
        Glibc.signal(SIGWINCH, SIG_DFL)
    }

    /// Columns and rows of the terminal on stderr (80×24 when it does not say).
    public static func size() -> (columns: Int, rows: Int) {
        var window = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// True once after each SIGWINCH.
    public static func takeWindowChange() -> Bool {
        windowChanged.exchange(false, ordering: .relaxed)
    }

    /// Draws `lines` from the top left, clearing what was there, and puts the cursor at
    /// `cursor` (1-based row, column).
    public static func draw(_ lines: [String], cursor: (row: Int, column: Int)) {
        var out = "\u{1B}[?25l\u{1B}[H"
        out += lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n")
        out += "\u{1B}[J\u{1B}[\(cursor.row);\(cursor.column)H\u{1B}[?25h"
        StandardStream.write(out, to: STDERR_FILENO)
    }
}
