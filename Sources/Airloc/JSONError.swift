/// The `error` object of every `--json` document whose command failed
/// (docs/json-schema.md): the same four keys whether the whole command failed (the
/// document then holds only `schema` and `error`) or one required part of an answer
/// did (a report whose air-quality part failed keeps its location and climate beside it).
///
/// Contract: `code` is the process's exit status; `kind` is one word per sysexits code,
/// stable for scripts to switch on; `retryable` is true exactly when `code` is 75 (the
/// same command may succeed later without any change).
public struct JSONError: Encodable, Sendable, Equatable {
    /// The exit status.
    public var code: Int
    /// The sysexits name of the status ("config").
    public var kind: String
    /// What went wrong.
    public var message: String
    /// True when trying again later may help.
    public var retryable: Bool

    /// An error of exit status `code`.
    public init(code: Int, message: String) {
        self.code = code
        self.kind = Self.kind(code)
        self.message = message
        self.retryable = code == 75
    }

    /// The word for an exit status (docs/cli.md has the table).
    public static func kind(_ code: Int) -> String {
        switch code {
        case 0: return "ok"
        case 1: return "no_match"
        case 64: return "usage"
        case 65: return "data"
        case 66: return "no_input"
        case 69: return "unavailable"
        case 70: return "internal"
        case 72: return "missing_file"
        case 74: return "io"
        case 75: return "temporary"
        case 77: return "not_authorized"
        case 78: return "configuration"
        case 130: return "interrupted"
        default: return "failed"
        }
    }
}
