import Foundation
import Geo
import Readings
import Sensors
import TestSupport
import Testing

@testable import Logbook

/// Measured readings in the logbook: written with the fix at the reading, a logbook of the
/// version before them brought forward with every row kept, exported, counted, and the
/// NowCast's hourly means read back.
@Suite struct SensorRowsTests {
    static let hour = Date(timeIntervalSince1970: 1_795_003_200)
    static let berlin = Coordinate(uncheckedLatitude: 52.52, longitude: 13.405)

    static func sample(pm25: Double, humidity: Double? = nil) -> SensorSample {
        SensorSample(
            model: .pms5003t, device: "/dev/x", serial: nil,
            readings: [
                ParticulateValues(
                    pm1_0: 4, pm2_5: pm25, pm10: pm25 + 5, pm2_5CF1: pm25 * 1.4, relativeHumidity: humidity)
            ],
            windowSeconds: 10, warmUpSeconds: 30, correction: .none, humidityLimit: 70)
    }

    @Test func aLogbookOfTheVersionBeforeIsBroughtForwardWithEveryRowKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("logbook.sqlite")
        do {
            let old = try Logbook(url: url)
            let segment = try old.startSegment(at: Self.hour, bootID: nil, reason: "start")
            try old.append(
                TrackPoint(
                    time: Self.hour, fix: Fix(coordinate: Self.berlin, source: .gps), provider: "gpsd", segment: segment
                ))
            // As version 3 left it: no sensor table, no collector's `stored` column, no uploads.
            try old.database.execute(
                """
                DROP TABLE sensor; DROP TABLE upload; DROP TABLE upload_state;
                DROP INDEX track_unstored; DROP INDEX air_unstored;
                ALTER TABLE track DROP COLUMN stored; ALTER TABLE air DROP COLUMN stored; PRAGMA user_version = 3
                """)
        }
        let logbook = try Logbook(url: url)
        #expect(try logbook.database.integer("PRAGMA user_version") == Int64(LogbookSchema.version))
        #expect(try logbook.status(now: Self.hour).trackRows == 1, "the track row survived the migration")
        try logbook.append(
            SensorRecord(Self.sample(pm25: 12), time: Self.hour, timeSource: "gps", coordinate: Self.berlin, segment: 1)
        )
        let status = try logbook.status(now: Self.hour)
        #expect(status.sensorRows == 1 && status.trackRows == 1)
    }

    @Test func rowsComeBackAsWrittenAndInEveryExport() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook(url: directory.file("logbook.sqlite"))
        try logbook.append(
            SensorRecord(
                Self.sample(pm25: 12.5, humidity: 80), time: Self.hour, timeSource: "system", coordinate: nil,
                segment: nil))
        var rows = try logbook.sensorRecords(in: LogWindow())
        let next = rows.next()
        let row = try #require(next)
        #expect(
            row.particulate?.pm2_5 == 12.5 && row.relativeHumidity == 80 && row.coordinate == nil
                && row.name == "sensor")
        #expect(row.flags == ["humidity"] && row.model == "pms5003t" && row.samples == 1)
        var ndjson = Data()
        let counts = try LogExport.write(logbook, format: .ndjson, kind: .sensor, window: LogWindow()) {
            ndjson.append($0)
        }
        #expect(counts.sensor == 1 && counts.track == 0)
        let line = try #require(try JSONSerialization.jsonObject(with: ndjson) as? [String: Any])
        #expect(line["id"] as? String == "s1" && line["kind"] as? String == "sensor" && line["latitude"] is NSNull)
        // A list, as `sense --json` has it (it was the string "humidity").
        #expect(line["flags"] as? [String] == ["humidity"] && line["pm2_5_cf1"] as? Double == 17.5)
        var geojson = Data()
        _ = try LogExport.write(logbook, format: .geojson, kind: .all, window: LogWindow()) { geojson.append($0) }
        let collection = try #require(try JSONSerialization.jsonObject(with: geojson) as? [String: Any])
        let feature = try #require((collection["features"] as? [[String: Any]])?.first)
        #expect(feature["geometry"] is NSNull, "no fix yet: a feature without a geometry, as RFC 7946 allows")
    }

    /// In CSV the measured values have columns of their own: a sensor row's PM2.5 never
    /// sits in the model's `pm2_5` column, nor its AQI in `us_aqi`.
    @Test func csvKeepsTheMeasuredValuesOutOfTheModelsColumns() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook(url: directory.file("logbook.sqlite"))
        try logbook.append(
            SensorRecord(
                Self.sample(pm25: 40.2), time: Self.hour, timeSource: "gps", coordinate: Self.berlin, segment: 1))
        var data = Data()
        _ = try LogExport.write(logbook, format: .csv, kind: .all, window: LogWindow()) { data.append($0) }
        let lines = String(decoding: data, as: UTF8.self).components(separatedBy: "\r\n")
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let row = lines[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        for name in ["pm2_5", "us_aqi", "measured_pm2_5", "measured_us_aqi", "measured_pm10"] {
            #expect(header.filter { $0 == name }.count == 1, "\(name) in \(header)")
        }
        func cell(_ name: String) -> String { row[header.firstIndex(of: name)!] }
        #expect(cell("measured_pm2_5") == "40.2" && cell("pm2_5").isEmpty, "\(lines[1])")
        #expect(!cell("measured_us_aqi").isEmpty && cell("us_aqi").isEmpty, "\(lines[1])")
    }

    @Test func hourlyMeansAreNewestFirstWithGapsForMissingHours() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook(url: directory.file("logbook.sqlite"))
        let now = Self.hour.addingTimeInterval(3 * 3600)
        // Two readings in the last hour, none in the one before, one three hours ago.
        for (minutesAgo, pm) in [(10.0, 10.0), (40, 20), (170, 50)] {
            try logbook.append(
                SensorRecord(
                    Self.sample(pm25: pm), time: now.addingTimeInterval(-minutesAgo * 60), timeSource: "gps",
                    coordinate: Self.berlin, segment: nil))
        }
        let hours = try logbook.hourlyPM2_5(before: now)
        #expect(hours.count == 12 && hours[0] == 15 && hours[1] == nil && hours[2] == 50 && hours[3] == nil)
    }

    /// Sensor readings carry exact positions too: a prune (and `[log] keep`) removes the
    /// old ones with the track points and air hours, counts them, and keeps a segment
    /// that only a reading still refers to.
    @Test func aPruneRemovesOldSensorReadingsAndCountsThem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook(url: directory.file("logbook.sqlite"))
        let old = try logbook.startSegment(at: Self.hour, bootID: nil, reason: "start")
        for minutes in [0.0, 10, 20] {
            try logbook.append(
                SensorRecord(
                    Self.sample(pm25: 12), time: Self.hour.addingTimeInterval(minutes * 60), timeSource: "gps",
                    coordinate: Self.berlin, segment: old))
        }
        let later = Self.hour.addingTimeInterval(7200)
        let recent = try logbook.startSegment(at: later, bootID: nil, reason: "start")
        try logbook.append(
            SensorRecord(
                Self.sample(pm25: 30), time: later, timeSource: "gps", coordinate: Self.berlin, segment: recent))
        let cutoff = Self.hour.addingTimeInterval(900)
        #expect(try logbook.countBefore(cutoff) == Logbook.Pruned(track: 0, air: 0, sensor: 2))
        #expect(try logbook.prune(before: cutoff) == Logbook.Pruned(track: 0, air: 0, sensor: 2))
        let status = try logbook.status(now: later)
        #expect(status.sensorRows == 2 && status.segments == 2, "the old segment still holds a reading")
        #expect(try logbook.prune(before: later.addingTimeInterval(1)).sensor == 2)
        #expect(try logbook.status(now: later).segments == 0)
    }
}
