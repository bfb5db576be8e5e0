/// Why the collector refused a message: the `reason` label of
/// `airloc_collector_rows_refused_total`, counted in `collect status` (docs/collector.md,
/// "What is refused").
///
/// Contract: every reason is a series of `/metrics` from the collector's start (0 until
/// its first refusal), so that an alert on its increase sees the first one too.
public enum RefusalReason: String, Sendable, CaseIterable {
    /// A payload over `[collect] max-message`.
    case tooLarge = "too_large"
    /// Bytes that are not UTF-8.
    case notUTF8 = "not_utf8"
    /// A payload that is not one JSON object.
    case notJSON = "not_json"
    /// A row of another schema.
    case unknownSchema = "unknown_schema"
    /// An id that is not its kind's.
    case badID = "bad_id"
    /// A row naming another device than its topic.
    case otherDevice = "other_device"
    /// A time that is not ISO 8601.
    case badTime = "bad_time"
    /// A value of the wrong type, or out of range.
    case badValue = "bad_value"
    /// A `\u0000` anywhere in the payload.
    case nulCharacter = "nul_character"
    /// A topic whose device level is not a device name.
    case badDevice = "bad_device"
    /// A device not registered, with `[collect] devices = known`.
    case unknownDevice = "unknown_device"
    /// A status that is not a short plain word.
    case badStatus = "bad_status"
    /// A hello that does not decode, or whose software is not plain text.
    case badHello = "bad_hello"
    /// A hello that is not the topic's device's.
    case foreignHello = "foreign_hello"
    /// PostgreSQL refused the row's data.
    case database
}
