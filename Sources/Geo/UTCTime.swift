import Foundation

/// A moment as UTC calendar time, read from and written as ISO 8601 text
/// ("2026-11-30T13:00:05Z"), with the proleptic Gregorian calendar.
///
/// Contract: `UTCTime(date).date == date` to the millisecond for years 1…9999;
/// ``parse(_:)`` accepts exactly the layouts gpsd, Open-Meteo and people write
/// ("2026-11-30", "2026-11-30T13:00", "…:05", "…:05.250", each with `Z`, `±HH:MM` or no
/// zone; a space may stand for the `T`) and returns nil for anything else, including
/// impossible dates such as February 30th. Text without a zone is UTC.
///
/// Why not Foundation's calendars and ISO 8601 formatters: on Linux they go through
/// ICU, whose first use maps megabytes of locale and time-zone data. A logger that
/// parsed gpsd's time once a second with them carried that all day
/// (docs/performance.md); this is integer arithmetic (Howard Hinnant's civil-from-days).
public struct UTCTime: Sendable, Hashable {
    /// The calendar year (2026).
    public var year: Int
    /// 1...12.
    public var month: Int
    /// 1...31.
    public var day: Int
    /// 0...23, UTC.
    public var hour: Int
    /// 0...59.
    public var minute: Int
    /// 0...59 (a leap second is not represented).
    public var second: Int
    /// 0...999.
    public var millisecond: Int

    /// How much of the time ``text(_:zone:)`` writes.
    public enum Precision: Sendable {
        /// "2026-11-30" (never with a zone).
        case day
        /// "2026-11-30T13:00".
        case minute
        /// "2026-11-30T13:00:05".
        case second
        /// "2026-11-30T13:00:05.250".
        case millisecond
    }

    /// The calendar time of `date`, rounded to the millisecond.
    public init(_ date: Date) {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, fraction) = Self.floorDivide(milliseconds, 1000)
        let (days, secondOfDay) = Self.floorDivide(seconds, 86_400)
        (year, month, day) = Self.civil(days: days)
        hour = Int(secondOfDay / 3600)
        minute = Int(secondOfDay / 60 % 60)
        second = Int(secondOfDay % 60)
        millisecond = Int(fraction)
    }

    /// A calendar time, or nil when the fields do not name one (month 13, 30 February,
    /// 24:00 and leap seconds included: gpsd and Open-Meteo never write them).
    public init?(
        year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, millisecond: Int = 0
    ) {
        guard (1...9999).contains(year), (1...12).contains(month), (0...23).contains(hour),
            (0...59).contains(minute), (0...59).contains(second), (0...999).contains(millisecond),
            (1...Self.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        (self.year, self.month, self.day) = (year, month, day)
        (self.hour, self.minute, self.second, self.millisecond) = (hour, minute, second, millisecond)
    }

    /// The instant this calendar time names.
    public var date: Date {
        let days = Self.days(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: Double(seconds) + Double(millisecond) / 1000)
    }

    /// ISO 8601 text at `precision`, ending in `Z` when `zone` is true.
    public func text(_ precision: Precision, zone: Bool = true) -> String {
        var text = ""
        text.reserveCapacity(24)
        Self.append(year, width: 4, to: &text)
        text += "-"
        Self.append(month, width: 2, to: &text)
        text += "-"
        Self.append(day, width: 2, to: &text)
        if precision == .day { return text }
        text += "T"
        Self.append(hour, width: 2, to: &text)
        text += ":"
        Self.append(minute, width: 2, to: &text)
        if precision == .second || precision == .millisecond {
            text += ":"
            Self.append(second, width: 2, to: &text)
        }
        if precision == .millisecond {
            text += "."
            Self.append(millisecond, width: 3, to: &text)
        }
        return zone ? text + "Z" : text
    }

    /// "2026-11-30T13:00:05Z", with ".250" before the `Z` only when the time has
    /// milliseconds: the form of every time airloc writes for scripts.
    public static func iso8601(_ date: Date) -> String {
        let time = UTCTime(date)
        return time.text(time.millisecond == 0 ? .second : .millisecond)
    }

    /// "2026-11-30T13:00:05Z": whole seconds, the fraction dropped.
    public static func iso8601Seconds(_ date: Date) -> String {
        UTCTime(Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))).text(.second)
    }

    /// The instant an ISO 8601 text names (see the type's contract for what is read).
    public static func parse(_ text: String) -> Date? {
        var reader = DigitReader(Array(text.utf8))
        guard let year = reader.number(digits: 4), reader.skip("-"), let month = reader.number(digits: 2),
            reader.skip("-"), let day = reader.number(digits: 2)
        else { return nil }
        var (hour, minute, second, millisecond) = (0, 0, 0, 0)
        if reader.skip("T") || reader.skip("t") || reader.skip(" ") {
            guard let h = reader.number(digits: 2), reader.skip(":"), let m = reader.number(digits: 2) else {
                return nil
            }
            (hour, minute) = (h, m)
            if reader.skip(":") {
                guard let s = reader.number(digits: 2) else { return nil }
                second = s
                if reader.skip(".") || reader.skip(",") {
                    // Any number of digits; milliseconds kept, the rest rounded away.
                    guard let (value, count) = reader.fraction() else { return nil }
                    millisecond = min(999, Int((Double(value) / pow(10, Double(count - 3))).rounded()))
                }
            }
        }
        var offsetSeconds = 0
        if reader.skip("Z") || reader.skip("z") {
        } else if let sign = reader.sign() {
            guard let h = reader.number(digits: 2), h <= 23 else { return nil }
            _ = reader.skip(":")
            guard let m = reader.number(digits: 2), m <= 59 else { return nil }
            offsetSeconds = sign * (h * 3600 + m * 60)
        }
        guard reader.atEnd,
            let time = UTCTime(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                millisecond: millisecond)
        else { return nil }
        return time.date.addingTimeInterval(-Double(offsetSeconds))
    }

    // MARK: the calendar

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a civil date.
    static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day count since 1970-01-01.
    static func civil(days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        return (Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0), month, day)
    }

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    static func append(_ value: Int, width: Int, to text: inout String) {
        let digits = String(value)
        if digits.count < width { text += String(repeating: "0", count: width - digits.count) }
        text += digits
    }
}

/// Reads fixed-width ASCII numbers and separators off the front of a text.
private struct DigitReader {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    mutating func number(digits: Int) -> Int? {
        guard index + digits <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<index + digits] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += digits
        return value
    }

    /// One or more digits (at most 9 kept) and how many were kept.
    mutating func fraction() -> (Int, Int)? {
        var value = 0
        var count = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            if count < 9 {
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                count += 1
            }
            index += 1
        }
        return count == 0 ? nil : (value, count)
    }

    /// +1 or -1 for a zone offset's sign.
    mutating func sign() -> Int? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}
