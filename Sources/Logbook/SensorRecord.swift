import Foundation
import Geo
import Readings

/// One measured reading (a row of the `sensor` table): the mean of a sample window of one
/// sensor, with the fix in force when it was made. The particulate sensor of `[sensor]`
/// (named `sensor`) gives ``particulate`` values; a CO₂ or climate sensor of
/// `[sensor.NAME]` gives ``climate`` values.
///
/// Contract: exactly one of ``particulate`` and ``climate`` is set; `time` is when the
/// window ended, stamped as track points are (`timeSource`); `coordinate` is nil when there
/// was no fix yet; `flags` are ``SensorSample/Flag`` raw values, or a climate sensor's
/// faults. Only frames whose checksum held are in it.
public struct SensorRecord: Sendable, Equatable {
    /// The row's number (`s3` is 3); 0 before it is written.
    public var id: Int64 = 0
    /// `sensor` for `[sensor]`, NAME for `[sensor.NAME]`.
    public var name: String
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
    /// The mean of a particulate sensor's samples (nil for a climate sensor's row).
    public var particulate: ParticulateValues?
    /// The mean of a CO₂ or climate sensor's samples (nil for a particulate row).
    public var climate: ClimateValues?
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

    /// The row of the particulate `sample`, stamped `time` by `timeSource`.
    public init(_ sample: SensorSample, time: Date, timeSource: String, coordinate: Coordinate?, segment: Int64?) {
        (self.time, self.timeSource, self.coordinate, self.segment) = (time, timeSource, coordinate, segment)
        (name, model, serial, particulate) = ("sensor", sample.model.rawValue, sample.serial, sample.mean)
        (samples, windowSeconds, usAQI) = (sample.samples, sample.windowSeconds, sample.usAQI)
        correctedPM2_5 = sample.correctedPM2_5
        flags = sample.flags.map(\.rawValue)
    }

    /// The row of `[sensor.NAME]`'s `sample`, stamped `time` by `timeSource`.
    public init(
        named name: String, _ sample: ClimateSample, time: Date, timeSource: String, coordinate: Coordinate?,
        segment: Int64?
    ) {
        (self.time, self.timeSource, self.coordinate, self.segment) = (time, timeSource, coordinate, segment)
        (self.name, model, serial, climate) = (name, sample.model.rawValue, nil, sample.mean)
        (samples, windowSeconds, usAQI, correctedPM2_5) = (sample.samples, sample.windowSeconds, nil, nil)
        // A row's flags are words (space-separated in the column): "out of range" is kept as
        // "out-of-range", as the particulate flags are written.
        flags = sample.faults.map { $0.replacingOccurrences(of: " ", with: "-") }
    }

    init(
        id: Int64, name: String, time: Date, timeSource: String, coordinate: Coordinate?, model: String,
        serial: String?, particulate: ParticulateValues?, climate: ClimateValues?, samples: Int,
        windowSeconds: Double, usAQI: Int?, correctedPM2_5: Double?, flags: [String], segment: Int64?
    ) {
        (self.id, self.name, self.time, self.timeSource, self.coordinate) = (id, name, time, timeSource, coordinate)
        (self.model, self.serial, self.particulate, self.climate) = (model, serial, particulate, climate)
        (self.samples, self.windowSeconds, self.usAQI) = (samples, windowSeconds, usAQI)
        (self.correctedPM2_5, self.flags, self.segment) = (correctedPM2_5, flags, segment)
    }

    /// °C: the climate sensor's, or a particulate sensor's own (PMS5003T).
    public var temperatureC: Double? { climate?.temperatureC ?? particulate?.temperatureC }
    /// %: the climate sensor's, or a particulate sensor's own (PMS5003T).
    public var relativeHumidity: Double? { climate?.relativeHumidity ?? particulate?.relativeHumidity }

    /// The values measured, by their row field names (`pm2_5`, `pm10`, `pm1_0`, `pm4_0`,
    /// `temperature_c`, `relative_humidity`, `co2_ppm`, `pressure_hpa`), none that was not:
    /// what MQTT's measured state and the public maps are sent.
    public var measuredValues: [String: Double] {
        var values: [String: Double] = [:]
        if let particulate {
            (values["pm2_5"], values["pm10"]) = (particulate.pm2_5, particulate.pm10)
            (values["pm1_0"], values["pm4_0"]) = (particulate.pm1_0, particulate.pm4_0)
        }
        (values["temperature_c"], values["relative_humidity"]) = (temperatureC, relativeHumidity)
        (values["co2_ppm"], values["pressure_hpa"]) = (climate?.co2PPM, climate?.pressureHPa)
        return values
    }
}

extension Logbook {
    /// Appends a measured reading.
    @discardableResult
    public func append(_ record: SensorRecord) throws(LogbookError) -> Int64 {
        let v = record.particulate
        let (outbox, collector) = (self.outbox, self.collector)
        return try writing { c throws(SQLiteError) in
            try c.run(
                """
                INSERT INTO sensor (id, t_ms, time_source, lat, lon, model, serial, pm1_0, pm2_5, pm4_0, pm10, pm2_5_cf1,
                                    temperature_c, relative_humidity, samples, window_s, us_aqi, corrected_pm2_5, flags,
                                    segment, sent, stored, name, co2_ppm, pressure_hpa)
                VALUES (\(LogbookIDs.next(.sensor)), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .integer(record.time.milliseconds), .text(record.timeSource),
                    .double(record.coordinate?.latitude), .double(record.coordinate?.longitude), .text(record.model),
                    .string(record.serial), .double(v?.pm1_0), .double(v?.pm2_5), .double(v?.pm4_0), .double(v?.pm10),
                    .double(v?.pm2_5CF1), .double(record.temperatureC), .double(record.relativeHumidity),
                    .integer(Int64(record.samples)), .real(record.windowSeconds), .int(record.usAQI),
                    .double(record.correctedPM2_5), .text(record.flags.joined(separator: " ")),
                    record.segment.map { .integer($0) } ?? nil, .integer(outbox ? 0 : 1), .integer(collector ? 0 : 1),
                    .text(record.name), .double(record.climate?.co2PPM), .double(record.climate?.pressureHPa),
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

    /// The newest row of the particulate sensor (`[sensor]`), if any.
    public func latestSensorRecord() throws(LogbookError) -> SensorRecord? {
        try latest("WHERE pm2_5 IS NOT NULL", [])
    }

    /// The newest row of the sensor named `name` (`sensor` or a `[sensor.NAME]`'s NAME), if any.
    public func latestSensorRecord(named name: String) throws(LogbookError) -> SensorRecord? {
        // Rows logged before names were kept are the particulate sensor's.
        name == "sensor" ? try latestSensorRecord() : try latest("WHERE name = ?", [.text(name)])
    }

    private func latest(_ filter: String, _ arguments: [SQLiteValue?]) throws(LogbookError) -> SensorRecord? {
        try with { c throws(SQLiteError) in
            let query = try c.statement("\(LogbookRows.sensorSelect) \(filter) ORDER BY t_ms DESC, id DESC LIMIT 1")
            try query.bind(arguments)
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
            guard (0..<12).contains(age), let pm2_5 = row.particulate?.pm2_5 else { continue }
            sums[age].0 += pm2_5
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
               relative_humidity, samples, window_s, us_aqi, corrected_pm2_5, flags, segment, name, co2_ppm, pressure_hpa
        """
    static let sensorSelect = "SELECT \(sensorColumns) FROM sensor"
    static let sensorRevisionColumn: Int32 = 23

    static func sensor(_ row: SQLiteDatabase.Statement) -> SensorRecord {
        // A row with PM values is the particulate sensor's; one without is a climate
        // sensor's (its temperature and humidity are its own).
        let particulate = row.real(8).flatMap { pm2_5 in
            row.real(10).map { pm10 in
                ParticulateValues(
                    pm1_0: row.real(7), pm2_5: pm2_5, pm4_0: row.real(9), pm10: pm10, pm2_5CF1: row.real(11),
                    temperatureC: row.real(12), relativeHumidity: row.real(13))
            }
        }
        let climate =
            particulate != nil
            ? nil
            : ClimateValues(
                co2PPM: row.real(21), temperatureC: row.real(12), relativeHumidity: row.real(13),
                pressureHPa: row.real(22))
        let coordinate = row.real(3).flatMap { lat in
            row.real(4).map { Coordinate(uncheckedLatitude: lat, longitude: $0) }
        }
        return SensorRecord(
            id: row.int(0) ?? 0, name: row.text(20) ?? "sensor", time: Date(milliseconds: row.int(1) ?? 0),
            timeSource: row.text(2) ?? "system", coordinate: coordinate, model: row.text(5) ?? "",
            serial: row.text(6), particulate: particulate, climate: climate, samples: Int(row.int(14) ?? 0),
            windowSeconds: row.real(15) ?? 0, usAQI: row.int(16).map(Int.init), correctedPM2_5: row.real(17),
            flags: (row.text(18) ?? "").split(separator: " ").map(String.init), segment: row.int(19))
    }
}

/// A row as the reading it records: what `now`, `sense` and the device's page show of
/// the latest logged reading.
extension SensorRecord {
    /// The row as a climate sensor's reading, read at `source` (its serial device or sysfs
    /// directory; nil for a particulate row).
    public func climate(source: String) -> ClimateSample? {
        guard let climate, let model = ClimateModel(rawValue: model) else { return nil }
        var sample = ClimateSample(
            model: model, source: source, readings: [climate], windowSeconds: windowSeconds,
            faults: flags)
        sample.samples = samples
        return sample
    }

    /// The row as the particulate sensor's reading (nil for a model this airloc does not
    /// know, or a climate sensor's row).
    public func sample(device: String) -> SensorSample? {
        guard let model = SensorModel(rawValue: model), let values = particulate else { return nil }
        return SensorSample(
            model: model, device: device, serial: serial, mean: values, samples: samples, windowSeconds: windowSeconds,
            usAQI: usAQI, correctedPM2_5: correctedPM2_5, flags: flags.compactMap(SensorSample.Flag.init(rawValue:)))
    }
}
