import Foundation
import Geo

/// Reading rows back: one track or air row from a statement, the cursors the exports
/// stream from, and the numbers `log status` shows.
///
/// Contract: cursors hold one row at a time (an export of any size runs in constant
/// memory) and return rows in time order, then id order.
enum LogbookRows {
    static let trackColumns =
        "id, t_ms, time_source, lat, lon, alt, speed, course, accuracy, mode, satellites, provider, segment"
    static let trackSelect = "SELECT \(trackColumns) FROM track"
    static let airColumns = """
        id, hour_s, logged_ms, lat, lon, sent_lat, sent_lon, place, us_aqi, category, dominant, pm2_5, pm10,
               nitrogen_dioxide, sulphur_dioxide, ozone, carbon_monoxide, european_aqi, pollen, source, reason, segment
        """
    static let airSelect = "SELECT \(airColumns) FROM air"
    /// The column after a select's own: where the outbox reads a row's revision.
    static let trackRevisionColumn: Int32 = 13
    static let airRevisionColumn: Int32 = 22

    static func track(_ row: SQLiteDatabase.Statement) -> TrackPoint {
        var point = TrackPoint(
            time: Date(milliseconds: row.int(1) ?? 0), timeSource: row.text(2) ?? "system",
            fix: Fix(
                coordinate: Coordinate(uncheckedLatitude: row.real(3) ?? 0, longitude: row.real(4) ?? 0),
                source: .gps),
            provider: row.text(11) ?? "", segment: row.int(12) ?? 0)
        point.id = row.int(0) ?? 0
        point.altitude = row.real(5)
        point.speed = row.real(6)
        point.course = row.real(7)
        point.accuracy = row.real(8)
        point.mode = row.int(9).map(Int.init)
        point.satellites = row.int(10).map(Int.init)
        return point
    }

    static func air(_ row: SQLiteDatabase.Statement) -> AirRecord {
        var values = AirValues()
        values.usAQI = row.int(8).map(Int.init)
        values.category = row.text(9)
        values.dominantPollutant = row.text(10)
        for (offset, name) in AirValues.pollutantNames.enumerated() {
            values.pollutants[name] = row.real(Int32(11 + offset))
        }
        values.europeanAQI = row.int(17).map(Int.init)
        values.pollen = row.text(18)
        var record = AirRecord(
            hour: Date(timeIntervalSince1970: Double(row.int(1) ?? 0)), loggedAt: Date(milliseconds: row.int(2) ?? 0),
            coordinate: Coordinate(uncheckedLatitude: row.real(3) ?? 0, longitude: row.real(4) ?? 0),
            sentCoordinate: Coordinate(uncheckedLatitude: row.real(5) ?? 0, longitude: row.real(6) ?? 0),
            place: row.text(7), values: values, source: AirRecord.Source(rawValue: row.text(19) ?? "") ?? .pending,
            reason: row.text(20), segment: row.int(21) ?? 0)
        record.id = row.int(0) ?? 0
        return record
    }
}

/// A time window of the log (both ends optional; `until` exclusive).
public struct LogWindow: Sendable, Equatable {
    /// From this time on (nil: from the start).
    public var since: Date?
    /// Before this time (nil: to the end).
    public var until: Date?

    /// A window.
    public init(since: Date? = nil, until: Date? = nil) {
        self.since = since
        self.until = until
    }
}

extension Logbook {
    /// Track points in time order, one at a time.
    public func trackPoints(in window: LogWindow = LogWindow()) throws(LogbookError) -> TrackCursor {
        let query = try cursor(
            "\(LogbookRows.trackSelect) WHERE t_ms >= ? AND t_ms < ? ORDER BY t_ms, id",
            [.integer(window.since?.milliseconds ?? Int64.min), .integer(window.until?.milliseconds ?? Int64.max)])
        return TrackCursor(query: query, path: url.path)
    }

    /// Air rows in hour order, one at a time.
    public func airRecords(in window: LogWindow = LogWindow()) throws(LogbookError) -> AirCursor {
        let query = try cursor(
            "\(LogbookRows.airSelect) WHERE hour_s >= ? AND hour_s < ? ORDER BY hour_s, id",
            [
                .integer(window.since.map { Int64($0.timeIntervalSince1970.rounded(.down)) } ?? Int64.min),
                .integer(window.until.map { Int64($0.timeIntervalSince1970.rounded(.up)) } ?? Int64.max),
            ])
        return AirCursor(query: query, path: url.path)
    }

    /// What `log status` shows.
    public func status(now: Date) throws(LogbookError) -> LogStatus {
        var status = try with { c throws(SQLiteError) in
            var status = LogStatus()
            status.trackRows = Int(try c.integer("SELECT count(*) FROM track") ?? 0)
            status.airRows = Int(try c.integer("SELECT count(*) FROM air") ?? 0)
            status.sensorRows = Int(try c.integer("SELECT count(*) FROM sensor") ?? 0)
            status.segments = Int(try c.integer("SELECT count(*) FROM segment") ?? 0)
            status.pending = Int(try c.integer("SELECT count(*) FROM air WHERE source = 'pending'") ?? 0)
            status.unavailable = Int(try c.integer("SELECT count(*) FROM air WHERE source = 'unavailable'") ?? 0)
            status.firstTime = try c.integer("SELECT min(t_ms) FROM track").map(Date.init(milliseconds:))
            status.lastTime = try c.integer("SELECT max(t_ms) FROM track").map(Date.init(milliseconds:))
            status.lastError = try c.meta("last_error")
            status.lastErrorAt = try c.meta("last_error_at")
            return status
        }
        status.lastFixAge = status.lastTime.map { max(0, now.timeIntervalSince($0)) }
        // An error the logbook could not take (a full disk) is the newer one.
        if let note = LastErrorNote(logbook: url).read() { (status.lastError, status.lastErrorAt) = note }
        return status
    }
}

/// What is in the logbook (`airloc log status`).
public struct LogStatus: Sendable, Equatable {
    /// Track points.
    public var trackRows = 0
    /// Air readings (pending hours included).
    public var airRows = 0
    /// Measured readings of the particulate sensor.
    public var sensorRows = 0
    /// Stretches logged without a gap.
    public var segments = 0
    /// Hours still to be back-filled.
    public var pending = 0
    /// Hours the service had no data for.
    public var unavailable = 0
    /// The first track point's time.
    public var firstTime: Date?
    /// The last track point's time.
    public var lastTime: Date?
    /// Seconds since the last track point.
    public var lastFixAge: TimeInterval?
    /// The logger's last error still going on.
    public var lastError: String?
    /// When it began.
    public var lastErrorAt: String?
}

/// Streams track points (``Logbook/trackPoints(in:)``).
public struct TrackCursor: IteratorProtocol, Sequence {
    let query: SQLiteDatabase.Statement
    let path: String
    /// Set when reading stopped on an error instead of at the end.
    public private(set) var error: LogbookError?

    /// The next point, nil at the end (or on an error: see ``error``).
    public mutating func next() -> TrackPoint? {
        do { return try query.step() ? LogbookRows.track(query) : nil } catch {
            self.error = .database(path, error)
            return nil
        }
    }
}

/// Streams air rows (``Logbook/airRecords(in:)``).
public struct AirCursor: IteratorProtocol, Sequence {
    let query: SQLiteDatabase.Statement
    let path: String
    /// Set when reading stopped on an error instead of at the end.
    public private(set) var error: LogbookError?

    /// The next air row, nil at the end (or on an error: see ``error``).
    public mutating func next() -> AirRecord? {
        do { return try query.step() ? LogbookRows.air(query) : nil } catch {
            self.error = .database(path, error)
            return nil
        }
    }
}
