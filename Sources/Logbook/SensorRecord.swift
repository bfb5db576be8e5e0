import Foundation
import Geo
import Sensors

/// One measured reading (a row of the `sensor` table): the mean of a sample window of the
/// particulate sensor, with the fix in force when it was made.
///
/// Contract: `time` is when the window ended, stamped as track points are (`timeSource`);
/// `coordinate` is nil when there was no fix yet; `flags` are ``SensorSample/Flag`` raw
/// values. Only frames whose checksum held are in it.
public struct SensorRecord: Sendable, Equatable {
    /// The row's number (`s3` is 3); 0 before it is written.
    public var id: Int64 = 0
    /// When the sample window ended.
    public var time: Date
    /// "gps" or "system": what stamped it.
    public var timeSource: String
    /// The fix in force (nil before the first).
    public var coordinate: Coordinate?
    /// The sensor's model.
    public var model: String
    /// Its serial number.
    public var serial: String?
    /// The mean of the samples.
    public var values: ParticulateValues
    /// Frames averaged.
    public var samples: Int
    /// Seconds they span.
    public var windowSeconds: Double
    /// The US AQI of the (corrected) PM2.5.
    public var usAQI: Int?
    /// PM2.5 after the correction.
    public var correctedPM2_5: Double?
    /// ``SensorSample/Flag`` raw values.
    public var flags: [String]
    /// The track segment it was made in.
    public var segment: Int64?

    /// The row of `sample`, stamped `time` by `timeSource`.
    public init(_ sample: SensorSample, time: Date, timeSource: String, coordinate: Coordinate?, segment: Int64?) {
        (self.time, self.timeSource, self.coordinate, self.segment) = (time, timeSource, coordinate, segment)
        (model, serial, values) = (sample.model.rawValue, sample.serial, sample.mean)
        (samples, windowSeconds, usAQI) = (sample.samples, sample.windowSeconds, sample.usAQI)
        correctedPM2_5 = sample.correctedPM2_5
        flags = sample.flags.map(\.rawValue)
    }

    init(
        id: Int64, time: Date, timeSource: String, coordinate: Coordinate?, model: String, serial: String?,
        values: ParticulateValues, samples: Int, windowSeconds: Double, usAQI: Int?, correctedPM2_5: Double?,
        flags: [String], segment: Int64?
    ) {
        (self.id, self.time, self.timeSource, self.coordinate) = (id, time, timeSource, coordinate)
        (self.model, self.serial, self.values, self.samples) = (model, serial, values, samples)
        (self.windowSeconds, self.usAQI, self.correctedPM2_5) = (windowSeconds, usAQI, correctedPM2_5)
        (self.flags, self.segment) = (flags, segment)
    }
}

extension Logbook {
    /// Appends a measured reading.
    @discardableResult
    public func append(_ record: SensorRecord) throws(LogbookError) -> Int64 {
        let v = record.values
        let (outbox, collector) = (self.outbox, self.collector)
        return try writing { c throws(SQLiteError) in
            try c.run(
                """
                INSERT INTO sensor (id, t_ms, time_source, lat, lon, model, serial, pm1_0, pm2_5, pm4_0, pm10, pm2_5_cf1,
                                    temperature_c, relative_humidity, samples, window_s, us_aqi, corrected_pm2_5, flags,
                                    segment, sent, stored)
                VALUES (\(LogbookIDs.next(.sensor)), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .integer(record.time.milliseconds), .text(record.timeSource),
                    .double(record.coordinate?.latitude), .double(record.coordinate?.longitude), .text(record.model),
                    .string(record.serial), .double(v.pm1_0), .real(v.pm2_5), .double(v.pm4_0), .real(v.pm10),
                    .double(v.pm2_5CF1), .double(v.temperatureC), .double(v.relativeHumidity),
                    .integer(Int64(record.samples)), .real(record.windowSeconds), .int(record.usAQI),
                    .double(record.correctedPM2_5), .text(record.flags.joined(separator: " ")),
                    record.segment.map { .integer($0) } ?? nil, .integer(outbox ? 0 : 1), .integer(collector ? 0 : 1),
                ])
            return c.database.lastInsertedRow
        }
    }

    /// The sensor rows in `window`, in time order, one at a time.
    public func sensorRecords(in window: LogWindow) throws(LogbookError) -> SensorCursor {
        let query = try cursor(
            "\(LogbookRows.sensorSelect) WHERE t_ms >= ? AND t_ms < ? ORDER BY t_ms, id",
            [.integer(window.since?.milliseconds ?? Int64.min), .integer(window.until?.milliseconds ?? Int64.max)])
        return SensorCursor(query: query, path: url.path)
    }

    /// The newest sensor row, if any.
    public func latestSensorRecord() throws(LogbookError) -> SensorRecord? {
        try with { c throws(SQLiteError) in
            let query = try c.statement("\(LogbookRows.sensorSelect) ORDER BY t_ms DESC, id DESC LIMIT 1")
            try query.bind([])
            guard try query.step() else { return nil }
            let row = LogbookRows.sensor(query)
            _ = try? query.step()
            return row
        }
    }

    /// Hourly means of measured PM2.5 over the 12 hours before `now`, newest first (nil
    /// for an hour without rows): what NowCast is computed from.
    public func hourlyPM2_5(before now: Date) throws(LogbookError) -> [Double?] {
        var hours = [Double?](repeating: nil, count: 12)
        var rows = try sensorRecords(in: LogWindow(since: now.addingTimeInterval(-12 * 3600), until: now))
        var sums = [(Double, Int)](repeating: (0, 0), count: 12)
        while let row = rows.next() {
            let age = Int(now.timeIntervalSince(row.time) / 3600)
            guard (0..<12).contains(age) else { continue }
            sums[age].0 += row.values.pm2_5
            sums[age].1 += 1
        }
        if let error = rows.error { throw error }
        for (index, sum) in sums.enumerated() where sum.1 > 0 { hours[index] = sum.0 / Double(sum.1) }
        return hours
    }
}

/// Streams sensor rows (``Logbook/sensorRecords(in:)``).
public struct SensorCursor: IteratorProtocol, Sequence {
    let query: SQLiteDatabase.Statement
    let path: String
    /// Set when reading stopped on an error instead of at the end.
    public private(set) var error: LogbookError?

    /// The next reading, nil at the end (or on an error: see ``error``).
    public mutating func next() -> SensorRecord? {
        do { return try query.step() ? LogbookRows.sensor(query) : nil } catch {
            self.error = .database(path, error)
            return nil
        }
    }
}

extension LogbookRows {
    static let sensorColumns = """
        id, t_ms, time_source, lat, lon, model, serial, pm1_0, pm2_5, pm4_0, pm10, pm2_5_cf1, temperature_c,
               relative_humidity, samples, window_s, us_aqi, corrected_pm2_5, flags, segment
        """
    static let sensorSelect = "SELECT \(sensorColumns) FROM sensor"
    static let sensorRevisionColumn: Int32 = 20

    static func sensor(_ row: SQLiteDatabase.Statement) -> SensorRecord {
        let values = ParticulateValues(
            pm1_0: row.real(7), pm2_5: row.real(8) ?? 0, pm4_0: row.real(9), pm10: row.real(10) ?? 0,
            pm2_5CF1: row.real(11), temperatureC: row.real(12), relativeHumidity: row.real(13))
        let coordinate = row.real(3).flatMap { lat in
            row.real(4).map { Coordinate(uncheckedLatitude: lat, longitude: $0) }
        }
        return SensorRecord(
            id: row.int(0) ?? 0, time: Date(milliseconds: row.int(1) ?? 0), timeSource: row.text(2) ?? "system",
            coordinate: coordinate, model: row.text(5) ?? "", serial: row.text(6), values: values,
            samples: Int(row.int(14) ?? 0), windowSeconds: row.real(15) ?? 0, usAQI: row.int(16).map(Int.init),
            correctedPM2_5: row.real(17), flags: (row.text(18) ?? "").split(separator: " ").map(String.init),
            segment: row.int(19))
    }
}
