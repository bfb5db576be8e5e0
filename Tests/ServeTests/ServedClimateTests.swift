import Airloc
import Foundation
import Logbook
import Readings
import Sensors
import Settings
import TestSupport
import Testing

@testable import Serve

/// `airloc serve` with CO₂ and climate sensors beside the particulate one, in-process: each
/// `[sensor.NAME]`'s latest logged values in `/metrics` by name, in airrohr's `/data.json`
/// as its family names them, and in `/api/now`'s `measured`.
@Suite struct ServedClimateTests {
    static func device() throws -> ServedDevice {
        let device = try ServedDevice { settings in
            for (name, model, key) in [("co2", ClimateModel.scd30, "device"), ("room", .bme280, "iio")] {
                var section = ClimateSensorSettings(name: name)
                section.model = model
                if key == "device" {
                    section.device = "/dev/ttyUSB1"
                } else {
                    section.iio = "/sys/bus/iio/devices/iio:device0"
                }
                settings.climateSensors.append(section)
            }
        }
        let logbook = try #require(device.logbook)
        let samples: [(String, ClimateModel, ClimateValues)] = [
            ("co2", .scd30, ClimateValues(co2PPM: 845, temperatureC: 21.5, relativeHumidity: 41)),
            ("room", .bme280, ClimateValues(temperatureC: 21.375, relativeHumidity: 45.123, pressureHPa: 1013.25)),
        ]
        for (name, model, values) in samples {
            let sample = ClimateSample(model: model, source: "/dev/x", readings: [values], windowSeconds: 10)
            try logbook.append(
                SensorRecord(
                    named: name, sample, time: device.now.addingTimeInterval(-30), timeSource: "gps", coordinate: nil,
                    segment: nil))
        }
        return device
    }

    @Test func metricsCarryEachSensorsValuesByName() async throws {
        let device = try Self.device()
        defer { device.remove() }
        let metrics = try await device.get("/metrics").text
        for line in [
            "airloc_co2_ppm{sensor=\"co2\"} 845", "airloc_temperature_celsius{sensor=\"co2\"} 21.5",
            // At each quantity's precision: read as 21.375 °C and 45.123 %.
            "airloc_temperature_celsius{sensor=\"room\"} 21.38",
            "airloc_relative_humidity_percent{sensor=\"room\"} 45.1",
            "airloc_pressure_hectopascals{sensor=\"room\"} 1013.25",

            "# TYPE airloc_co2_ppm gauge",
        ] {
            #expect(metrics.contains(line + "\n"), "\(line) in\n\(metrics)")
        }
        let age = metrics.split(separator: "\n").first {
            $0.hasPrefix("airloc_sensor_reading_age_seconds{sensor=\"co2\"} ")
        }
        #expect(abs((age?.split(separator: " ").last.flatMap { Double($0) } ?? 0) - 30) < 1, "\(metrics)")
        #expect(!metrics.contains("airloc_co2_ppm{sensor=\"room\"}"), "a BME280 measures no CO₂")
        #expect(!metrics.contains("airloc_pressure_hectopascals{sensor=\"co2\"}"))
    }

    @Test func dataJSONAndTheAPINameTheClimateValues() async throws {
        let device = try Self.device()
        defer { device.remove() }
        let data = try await device.json("/data.json")
        let values = Dictionary(
            (data["sensordatavalues"] as? [[String: String]] ?? []).map { ($0["value_type"] ?? "", $0["value"] ?? "") }
        ) { first, _ in first }
        #expect(values["SCD30_co2_ppm"] == "845.00" && values["SCD30_temperature"] == "21.50", "\(values)")
        #expect(values["BME280_pressure"] == "101325.00" && values["BME280_humidity"] == "45.10", "\(values)")
        #expect(values["SDS_P2"] == "40.20", "the particulate reading stays: \(values)")

        let now = try await device.json("/api/now")
        let measured = try #require(now["measured"] as? [String: Any], "\(now)")
        #expect(measured["co2_ppm"] as? Double == 845 && measured["co2_band"] as? String == "moderate")
        let sensors = measured["sensors"] as? [[String: Any]] ?? []
        #expect(sensors.map { $0["name"] as? String } == ["co2", "room"], "\(sensors)")
        #expect(sensors.first?["age_s"] as? Double == 30, "\(sensors)")
    }
}
