import Foundation

/// Keeps the user's authorization decision in `$XDG_STATE_HOME/airloc/authorization`
/// (default `~/.local/state/airloc/authorization`) as two `key=value` lines.
///
/// Contract: a missing file means "not determined"; an unreadable or damaged one is
/// also "not determined" (never a crash, never an accidental grant); writes are atomic
/// (temporary file + rename) and the file is private to the user (mode 0600).
public struct AuthorizationStore: Sendable {
    public var file: URL

    public init(stateDirectory: URL) {
        file = stateDirectory.appendingPathComponent("authorization")
    }

    public func load() -> AuthorizationDecision? {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
        var status: AuthorizationStatus?
        var accuracy = AccuracyAuthorization.full
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            if parts[0] == "status" { status = AuthorizationStatus(rawValue: parts[1]) }
            if parts[0] == "accuracy" { accuracy = AccuracyAuthorization(rawValue: parts[1]) ?? .reduced }
        }
        return status.map { AuthorizationDecision(status: $0, accuracy: accuracy) }
    }

    public func save(_ decision: AuthorizationDecision) throws {
        let directory = file.deletingLastPathComponent()
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let text = "status=\(decision.status.rawValue)\naccuracy=\(decision.accuracy.rawValue)\n"
        let temporary = directory.appendingPathComponent(".authorization.\(ProcessInfo.processInfo.processIdentifier)")
        try Data(text.utf8).write(to: temporary)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary.path)
        if rename(temporary.path, file.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
    }

    public func clear() throws {
        if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
    }
}
