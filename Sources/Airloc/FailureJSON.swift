/// What a script reading `--json` gets when the command fails: still one JSON document on
/// stdout, with the command's schema and an `error` object (docs/json-schema.md), so it
/// never has to scrape stderr. The message is on stderr as well, for people.
public struct FailureJSON: Encodable, Sendable {
    /// The failing command's schema.
    public var schema: String
    /// What failed.
    public var error: JSONError

    /// The schema of each command's `--json` document.
    static let schemas: [String: String] = [
        "now": "airloc.report/1", "air": "airloc.report/1", "locate": "airloc.locate/1",
        "doctor": "airloc.doctor/1", "search": "airloc.search/1", "use": "airloc.use/1",
        "popular": "airloc.popular/1", "reverse": "airloc.reverse/1", "postal": "airloc.postal/1",
        "data": "airloc.data/1", "auth": "airloc.auth/1", "log": "airloc.log-status/1",
        "sense": "airloc.sense/1", "collect": "airloc.collect-status/1", "serve": "airloc.share/1",
    ]

    /// The document of a failure of `command` (its exit status and message), when the
    /// command has a JSON form.
    public static func document(code: Int, message: String, command: String) -> String? {
        guard let schema = schemas[command] else { return nil }
        return JSONDocument.encode(FailureJSON(schema: schema, error: JSONError(code: code, message: message)))
    }
}
