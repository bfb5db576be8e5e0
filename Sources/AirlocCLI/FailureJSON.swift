import Airloc

/// What a script reading `--json` gets when the command fails: still one JSON document on
/// stdout, with the command's schema and an `error` object (docs/json-schema.md), so it
/// never has to scrape stderr. The message is on stderr as well, for people.
struct FailureJSON: Encodable {
    var schema: String
    var error: ErrorObject

    struct ErrorObject: Encodable {
        /// The exit status.
        var code: Int
        /// What kind of failure, in words a script can switch on.
        var kind: String
        var message: String
        /// True when the same command may succeed later without any change (exit 75).
        var retryable: Bool
    }

    /// The schema of each command's `--json` document.
    static let schemas: [String: String] = [
        "now": "airloc.report/1", "air": "airloc.report/1", "locate": "airloc.locate/1",
        "doctor": "airloc.doctor/1", "search": "airloc.search/1", "use": "airloc.use/1",
        "popular": "airloc.popular/1", "reverse": "airloc.reverse/1", "postal": "airloc.postal/1",
        "data": "airloc.data/1",
    ]

    static func kind(_ code: ExitCode) -> String {
        switch code {
        case .ok: return "ok"
        case .cancelled: return "no_match"
        case .usage: return "usage"
        case .dataError: return "data"
        case .noInput: return "no_input"
        case .unavailable: return "unavailable"
        case .software: return "internal"
        case .osFile: return "missing_file"
        case .ioError: return "io"
        case .tempFail: return "temporary"
        case .noPermission: return "not_authorized"
        case .config: return "configuration"
        case .interrupted: return "interrupted"
        }
    }

    /// The document for `error` from `command`, when the command has a JSON form.
    static func document(for error: CLIError, command: String) -> String? {
        guard let schema = schemas[command] else { return nil }
        return JSONDocument.encode(
            FailureJSON(
                schema: schema,
                error: ErrorObject(
                    code: Int(error.code.rawValue), kind: kind(error.code), message: error.message,
                    retryable: error.code == .tempFail)))
    }
}
