import Foundation
import Platform

/// Keeps the user's authorization decision in `$XDG_STATE_HOME/airloc/authorization`
/// (default `~/.local/state/airloc/authorization`) as two `key=value` lines.
///
/// Contract: a missing file means "not determined"; an unreadable or damaged one is
/// also "not determined" (never a crash, never an accidental grant); writes are atomic
/// (temporary file + rename) and the file is private to the user (mode 0600).
public struct AuthorizationStore: Sendable {
    /// The file the decision is kept in.
    public var file: URL

    /// The store in `stateDirectory`.
    public init(stateDirectory: URL) {
        file = stateDirectory.appendingPathComponent("authorization")
    }

    /// The stored decision, nil when none (or unreadable).
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

    /// Keeps `decision` (0600).
    public func save(_ decision: AuthorizationDecision) throws(FileError) {
        let text = "status=\(decision.status.rawValue)\naccuracy=\(decision.accuracy.rawValue)\n"
        try AtomicFile.write(Data(text.utf8), to: file)
    }

    /// Forgets the decision.
    public func clear() throws(FileError) {
        try AtomicFile.remove(file)
    }

    /// Does what the authorization machine asked of the store (`persist`, `clear`); the
    /// refusal it returned instead, if any, for the caller to say.
    public func perform(_ action: LocationAuthorization.Action) throws(FileError) -> LocationAuthorization.Refusal? {
        switch action {
        case .persist(let decision): try save(decision)
        case .clear: try clear()
        case .refuse(let refusal): return refusal
        case .proceed, .prompt: break
        }
        return nil
    }
}
