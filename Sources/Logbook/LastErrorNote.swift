import Foundation
import Platform

/// The logger's last error where a full disk cannot stop it being read: a small file on
/// the runtime tmpfs (`/run/airloc`, the unit's RuntimeDirectory; else
/// `$XDG_RUNTIME_DIR/airloc`; `AIRLOC_RUNTIME_DIR` for tests), written only when the
/// logbook itself cannot take the error, and removed once it can again.
///
/// Contract: one file per logbook (named after a hash of its path), two lines: the time
/// (as `last_error_at`) and the message (which never holds a position). `log status` shows it in
/// place of the logbook's own last error while it exists.
public struct LastErrorNote: Sendable {
    /// The note's file.
    public let file: URL

    /// The note of the logbook at `logbook`, in the first runtime directory that exists.
    public init(logbook: URL, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let name = "last-error-" + String(Self.hash(logbook.standardizedFileURL.path), radix: 16)
        let candidates =
            [environment["AIRLOC_RUNTIME_DIR"], "/run/airloc", environment["XDG_RUNTIME_DIR"].map { $0 + "/airloc" }]
            .compactMap { $0 }
        let directory =
            candidates.first { FileManager.default.isWritableFile(atPath: $0) } ?? candidates[0]
        file = URL(fileURLWithPath: directory).appendingPathComponent(name)
    }

    /// Keeps `message` (nil: removes the note).
    public func write(_ message: String?, at time: Date) {
        guard let message else {
            try? FileManager.default.removeItem(at: file)
            return
        }
        try? FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let text = LogFields.time(time) + "\n" + message + "\n"
        try? text.write(to: file, atomically: true, encoding: .utf8)
    }

    /// The message and its time, when there is a note.
    public func read() -> (message: String, at: String)? {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n", maxSplits: 1).map(String.init)
        guard lines.count == 2 else { return nil }
        return (lines[1].trimmingCharacters(in: .newlines), lines[0])
    }

    /// FNV-1a, 64 bits: a stable name across runs (Swift's `hashValue` is seeded per run).
    static func hash(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}
