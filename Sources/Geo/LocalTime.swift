import Foundation

/// The time of day and UTC offset in an IANA time zone at one instant: what seed 001
/// shows for a contact's place ("Tokyo · UTC+09:00 · 22:05").
///
/// Contract: nil for a zone the system's tz database does not know (or an empty id),
/// never a guess; the offset includes daylight-saving time at that instant.
public struct LocalTime: Sendable, Hashable {
    /// The IANA time zone ("Europe/Berlin").
    public var timezone: String
    /// Seconds east of UTC.
    public var offsetSeconds: Int
    /// ISO 8601 local date-time without offset, "2026-11-29T14:05".
    public var localDateTime: String
    /// "14:05".
    public var clock: String

    /// The local time in `identifier` at `date`; nil for a zone this system does not know.
    public init?(timezone identifier: String, at date: Date = Date()) {
        guard !identifier.isEmpty, let zone = TimeZone(identifier: identifier) else { return nil }
        timezone = identifier
        offsetSeconds = zone.secondsFromGMT(for: date)
        // The wall clock there is UTC shifted by the offset (seconds dropped, as a
        // clock shows them).
        let wall = UTCTime(
            Date(timeIntervalSince1970: (date.timeIntervalSince1970 + Double(offsetSeconds)).rounded(.down)))
        localDateTime = wall.text(.minute, zone: false)
        clock = String(localDateTime.suffix(5))
    }

    /// "+01:00", "-09:30", "+05:45".
    public var offset: String {
        let sign = offsetSeconds < 0 ? "-" : "+"
        let minutes = abs(offsetSeconds) / 60
        return String(format: "%@%02d:%02d", sign, minutes / 60, minutes % 60)
    }

    /// "UTC+1", "UTC−9:30", "UTC+5:45", "UTC" — compact, for text output.
    public var shortOffset: String {
        if offsetSeconds == 0 { return "UTC" }
        let sign = offsetSeconds < 0 ? "-" : "+"
        let minutes = abs(offsetSeconds) / 60
        return minutes % 60 == 0
            ? "UTC\(sign)\(minutes / 60)" : String(format: "UTC%@%d:%02d", sign, minutes / 60, minutes % 60)
    }
}
