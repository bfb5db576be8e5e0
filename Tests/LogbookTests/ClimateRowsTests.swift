import Foundation
import Geo
import Readings
import Sensors
import TestSupport
import Testing

@testable import Logbook

/// CO₂ and climate readings in the logbook: `sensor` rows with their sensor's name and no
/// PM values, a logbook of version 7 rebuilt with every row as it was, every export
/// carrying the new values, and the particulate readers (NowCast, the card's latest
/// reading) never mistaking a climate row for a PM reading.
@Suite struct ClimateRowsTests {
    static let hour = SensorRowsTests.hour
    static let berlin = SensorRowsTests.berlin

    static func co2(_ ppm: Double, temperature: Double? = nil, humidity: Double? = nil) -> ClimateSample {
        ClimateSample(
            model: .scd30, source: "/dev/ttyUSB1",
            readings: [ClimateValues(co2PPM: ppm, temperatureC: temperature, relativeHumidity: humidity)],
            windowSeconds: 10)
    }

    static func climate(
        _ name: String, _ sample: ClimateSample, at time: Date, coordinate: Coordinate? = berlin
    ) -> SensorRecord {
        SensorRecord(named: name, sample, time: time, timeSource: "gps", coordinate: coordinate, segment: nil)
    }

    @Test func aClimateRowComesBackAsWrittenBesideTheParticulateOnes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook(url: directory.file("logbook.sqlite"))
        try logbook.append(
            SensorRecord(
                SensorRowsTests.sample(pm25: 12), time: Self.hour, timeSource: "gps", coordinate: Self.berlin,
                segment: nil))
        let bme = ClimateSample(
            model: .bme280, source: "/sys/bus/iio/devices/iio:device0",
            readings: [ClimateValues(temperatureC: 21.5, relativeHumidity: 44, pressureHPa: 1013.25)],
            windowSeconds: 9)
        try logbook.append(
            Self.climate("co2", Self.co2(612, temperature: 22.1, humidity: 41), at: Self.hour.addingTimeInterval(30)))
        try logbook.append(Self.climate("room", bme, at: Self.hour.addingTimeInterval(40)))

        let rows = try logbook.sensorRecords(in: LogWindow())
        let all = Array(AnySequence { rows })
        #expect(all.map(\.name) == ["sensor", "co2", "room"])
        #expect(all[1].particulate == nil && all[1].climate?.co2PPM == 612 && all[1].temperatureC == 22.1)
        #expect(all[2].climate == ClimateValues(temperatureC: 21.5, relativeHumidity: 44, pressureHPa: 1013.25))
        #expect(all[2].model == "bme280" && all[2].samples == 1 && all[2].coordinate == Self.berlin)
        // The card and NowCast read PM: the newest PM row, whatever was logged after it.
        #expect(try logbook.latestSensorRecord()?.name == "sensor")
        #expect(try logbook.latestSensorRecord(named: "co2")?.climate?.co2PPM == 612)
        #expect(try logbook.latestSensorRecord(named: "nothing") == nil)
        #expect(try logbook.hourlyPM2_5(before: Self.hour.addingTimeInterval(600))[0] == 12)
        #expect(try logbook.status(now: Self.hour).sensorRows == 3)
    }

    @Test func everyExportCarriesTheClimateValues() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook(url: directory.file("logbook.sqlite"))
        try logbook.append(Self.climate("co2", Self.co2(845.5, temperature: 22, humidity: 41.5), at: Self.hour))
        func export(_ format: LogExport.Format) throws -> String {
            var data = Data()
            _ = try LogExport.write(logbook, format: format, kind: .all, window: LogWindow()) { data.append($0) }
            return String(decoding: data, as: UTF8.self)
        }
        let line = try #require(
            try JSONSerialization.jsonObject(with: Data(try export(.ndjson).utf8)) as? [String: Any])
        // 845.5 ppm as averaged, kept in whole ppm (CO₂'s precision).
        #expect(line["name"] as? String == "co2" && line["co2_ppm"] as? Double == 846)
        #expect(line["temperature_c"] as? Double == 22 && line["relative_humidity"] as? Double == 41.5)
        #expect(line["pm2_5"] is NSNull && line["pressure_hpa"] is NSNull && line["model"] as? String == "scd30")

        let csv = try export(.csv).components(separatedBy: "\r\n")
        let header = csv[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let cells = csv[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        func cell(_ name: String) throws -> String { cells[try #require(header.firstIndex(of: name), "\(name)")] }
        #expect(try cell("co2_ppm") == "846" && cell("name") == "co2" && cell("measured_pm2_5").isEmpty)

        let geojson = try #require(
            try JSONSerialization.jsonObject(with: Data(try export(.geojson).utf8)) as? [String: Any])
        let feature = try #require((geojson["features"] as? [[String: Any]])?.first)
        let properties = try #require(feature["properties"] as? [String: Any])
        #expect(properties["co2_ppm"] as? Double == 846 && properties["name"] as? String == "co2")

        let gpx = try export(.gpx)
        #expect(gpx.contains("<name>co2: CO₂ 846 ppm, 22 °C, 42 %</name>"), "\(gpx)")
        #expect(gpx.contains("co2_ppm=\"846\"") && gpx.contains("name=\"co2\""))
        #expect(!gpx.contains("PM2.5"), "a CO₂ reading is not called a PM reading")
    }

    /// A logbook of version 7 (PM values NOT NULL, no names) is made again as version 8:
    /// every row keeps its id, its values and where the outbox and the collector were.
    @Test func aVersion7LogbookIsRebuiltWithEveryRowAsItWas() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("logbook.sqlite")
        do {
            let old = try Logbook(url: url, outbox: true, collector: true)
            for minutes in [0.0, 10, 20] {
                try old.append(
                    SensorRecord(
                        SensorRowsTests.sample(pm25: 10 + minutes), time: Self.hour.addingTimeInterval(minutes * 60),
                        timeSource: "gps",
                        coordinate: Self.berlin, segment: nil))
            }
            // The first row published and stored, the second published at revision 2.
            try old.database.execute(
                """
                UPDATE sensor SET sent = 1, stored = 1 WHERE id = 1;
                UPDATE sensor SET sent = 1, revision = 2 WHERE id = 2;
                DELETE FROM sensor WHERE id = 3;
                INSERT INTO meta (key, value) VALUES ('highest_sensor', '3');
                DROP INDEX sensor_name_time;
                ALTER TABLE sensor DROP COLUMN name;
                ALTER TABLE sensor DROP COLUMN co2_ppm;
                ALTER TABLE sensor DROP COLUMN pressure_hpa;
                PRAGMA user_version = 7
                """)
        }
        let logbook = try Logbook(url: url, outbox: true, collector: true)
        #expect(try logbook.database.integer("PRAGMA user_version") == Int64(LogbookSchema.version))
        let database = logbook.database
        #expect(try database.integer("SELECT count(*) FROM sensor WHERE name = 'sensor'") == 2)
        #expect(try database.integer("SELECT sent + 10 * stored + 100 * revision FROM sensor WHERE id = 1") == 11)
        #expect(try database.integer("SELECT sent + 10 * stored + 100 * revision FROM sensor WHERE id = 2") == 201)
        #expect(try database.integer("SELECT CAST(pm2_5 AS INTEGER) FROM sensor WHERE id = 2") == 20)
        // A pruned id is still never given again, and a climate row fits now.
        let id = try logbook.append(Self.climate("co2", Self.co2(700), at: Self.hour.addingTimeInterval(3600)))
        #expect(id == 4)
        #expect(try logbook.latestSensorRecord()?.particulate?.pm2_5 == 20)
    }
}
