import Foundation
import Platform
import Settings
import Testing

@testable import Airloc

/// doctor's `[sensor.NAME]` checks on a directory laid out as sysfs lays it out: a bound
/// and configured sensor answers with its values, one wired but not configured is named
/// with the section that reads it, a configured one that is missing comes with the overlay
/// that binds it, and a section that makes no sense is said as it is.
@Suite struct ClimateSensorCheckTests {
    static func sysfs() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sysfs-\(UUID().uuidString)")
        let devices: [(String, [String: String])] = [
            ("bus/iio/devices/iio:device0", ["name": "ads1015\n"]),
            (
                "bus/iio/devices/iio:device1",
                ["name": "bme280\n", "in_temp_input": "19250\n", "in_pressure_input": "99.1\n"]
            ),
            ("class/hwmon/hwmon0", ["name": "cpu_thermal\n", "temp1_input": "48000\n"]),
            ("class/hwmon/hwmon1", ["name": "sht3x\n", "temp1_input": "20000\n", "humidity1_input": "50000\n"]),
        ]
        for (path, files) in devices {
            let directory = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (file, text) in files {
                try text.write(to: directory.appendingPathComponent(file), atomically: true, encoding: .utf8)
            }
        }
        return root
    }

    static func settings(_ sections: [ClimateSensorSettings]) -> Settings {
        var settings = Settings(directories: XDGDirectories(environment: ["HOME": "/nonexistent"]))
        settings.climateSensors = sections
        return settings
    }

    static func section(_ name: String, _ edit: (inout ClimateSensorSettings) -> Void) -> ClimateSensorSettings {
        var section = ClimateSensorSettings(name: name)
        edit(&section)
        return section
    }

    @Test func aBoundSensorAnswersAndAnUnconfiguredOneIsNamed() async throws {
        let root = try Self.sysfs()
        defer { try? FileManager.default.removeItem(at: root) }
        let room = Self.section("room") { ($0.model, $0.iio) = (.bme280, "auto") }
        let checks = await HealthCheck.climateSensors(Self.settings([room]), root: root)
        let answer = try #require(checks.first { $0.name == "sensor room" })
        #expect(answer.status == .ok && answer.detail.contains("19.2 °C, 991.0 hPa"), "\(answer)")
        let kernel = try #require(checks.first { $0.name == "kernel sensors" })
        #expect(kernel.detail.contains("bme280 (") && kernel.detail.contains("sht3x ("), "\(kernel)")
        #expect(!kernel.detail.contains("ads1015") && !kernel.detail.contains("cpu_thermal"), "\(kernel)")
        #expect(kernel.status == .warn && kernel.advice?.contains("model = sht3x, hwmon = auto") == true, "\(kernel)")
    }

    @Test func aMissingSensorComesWithItsOverlayAndABadSectionIsSaid() async throws {
        let root = try Self.sysfs()
        defer { try? FileManager.default.removeItem(at: root) }
        let sections = [
            Self.section("air") { ($0.model, $0.iio) = (.bme680, "auto") },
            Self.section("odd") { ($0.model, $0.device) = (.sht3x, "/dev/ttyUSB0") },
        ]
        let checks = await HealthCheck.climateSensors(Self.settings(sections), root: root)
        let missing = try #require(checks.first { $0.name == "sensor air" })
        #expect(
            missing.status == .fail && missing.advice?.contains("dtoverlay=i2c-sensor,bme680") == true, "\(missing)")
        let odd = try #require(checks.first { $0.name == "sensor odd" })
        #expect(odd.status == .fail && odd.detail.contains("is read through the kernel: set hwmon"), "\(odd)")
    }

    @Test func nothingIsSaidWithoutSectionsOrBoundDevices() async throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("sysfs-\(UUID().uuidString)")
        #expect(await HealthCheck.climateSensors(Self.settings([]), root: empty).isEmpty)
    }
}
