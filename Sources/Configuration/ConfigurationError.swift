/// A configuration that cannot be used, said so that it can be fixed.
///
/// Contract: `message` names the file and line (or the environment variable) and what
/// was expected there — never the value of a secret (an API key, a password) — because a
/// typo in a privacy setting must never silently fall back to a default.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, with the file and line.
    public var message: String
    /// An error saying `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
