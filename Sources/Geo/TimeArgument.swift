import Foundation

/// A time as the command line takes it (`log export --since`, `log prune --before`,
/// `serve share --since/--until/--expires`): an ISO 8601 time or date, or a span counted
/// from now — back for a window's edge (`24h`: a day ago), ahead for an expiry (`7d`).
///
/// Contract: a span is a finite, non-negative number followed by `s`, `m`, `h` or `d`
/// (`90m`, `1.5h`); anything else is read by ``UTCTime/parse(_:)``; nil when neither
/// reads it.
public enum TimeArgument {
    /// What a T may be, for an error message.
    public static let expected = "an ISO 8601 time or date (2026-11-30T12:00Z, 2026-11-30) or an age (90m, 24h, 7d)"

    /// `text` as a time, a span counted back from `now`.
    public static func past(_ text: String, now: Date) -> Date? {
        if let seconds = span(text) { return now.addingTimeInterval(-seconds) }
        return UTCTime.parse(text)
    }

    /// `text` as a time, a span counted ahead of `now`.
    public static func ahead(_ text: String, now: Date) -> Date? {
        if let seconds = span(text) { return now.addingTimeInterval(seconds) }
        return UTCTime.parse(text)
    }

    /// The seconds of `90m`, `24h`, `7d`, `30s`; nil when `text` is no span.
    static func span(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Double(text.dropLast()), count.isFinite,
            count >= 0
        else { return nil }
        return count * unit
    }
}
