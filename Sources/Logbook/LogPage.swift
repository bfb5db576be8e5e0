import Foundation

/// Where a page of a window of the logbook ends: what lets `airloc serve` answer a range of
/// any size (a year of one-second fixes) a bounded page at a time, with a link to the rest.
///
/// Contract: ``end(of:rowsPerKind:kinds:)`` is nil when every kind has at most
/// `rowsPerKind` rows in the window; else a whole second after the window's start before
/// which each kind has at most `rowsPerKind` rows. Pages cut there never share a row (air
/// rows are keyed by whole seconds) and always move on (a page holds at least a second).
public enum LogPage {
    /// The kinds a page counts.
    public struct Kinds: OptionSet, Sendable {
        /// The kinds as bits.
        public let rawValue: Int
        /// The kinds of `rawValue`'s bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Track points.
        public static let track = Kinds(rawValue: 1)
        /// Air rows.
        public static let air = Kinds(rawValue: 2)
        /// Sensor readings.
        public static let sensor = Kinds(rawValue: 4)
        /// Every kind.
        public static let all: Kinds = [.track, .air, .sensor]
    }

    /// The end of the first page of `window` (nil: the window is one page).
    public static func end(of window: LogWindow, rowsPerKind: Int, kinds: Kinds, in logbook: Logbook)
        throws(LogbookError) -> Date?
    {
        let since = window.since?.milliseconds ?? Int64.min
        let until = window.until?.milliseconds ?? Int64.max
        var cuts: [Int64] = []
        let tables = [
            (Kinds.track, "SELECT t_ms FROM track WHERE t_ms >= ? AND t_ms < ? ORDER BY t_ms LIMIT 1 OFFSET ?", 1),
            (Kinds.sensor, "SELECT t_ms FROM sensor WHERE t_ms >= ? AND t_ms < ? ORDER BY t_ms LIMIT 1 OFFSET ?", 1),
            (
                Kinds.air, "SELECT hour_s FROM air WHERE hour_s >= ? AND hour_s < ? ORDER BY hour_s LIMIT 1 OFFSET ?",
                1000
            ),
        ]
        for (kind, sql, scale) in tables where kinds.contains(kind) {
            let bounds: [SQLiteValue?] =
                scale == 1
                ? [.integer(since), .integer(until)]
                : [
                    .integer(since == Int64.min ? since : since / 1000),
                    .integer(until == Int64.max ? until : until / 1000),
                ]
            let first = try logbook.with { c throws(SQLiteError) in
                try c.integer(sql, bounds + [.integer(Int64(rowsPerKind))])
            }
            if let first { cuts.append(first * Int64(scale)) }
        }
        guard let cut = cuts.min() else { return nil }
        // A whole second, and after the start: pages share no air row and always move on.
        let second = Int64((Double(cut) / 1000).rounded(.down)) * 1000
        let firstWhole = since == Int64.min ? Int64.min : Int64((Double(since) / 1000).rounded(.down)) * 1000 + 1000
        return Date(timeIntervalSince1970: Double(max(second, firstWhole)) / 1000)
    }
}
