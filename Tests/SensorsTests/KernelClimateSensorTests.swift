import Foundation
import Readings
import TestSupport
import Testing

@testable import Sensors

/// The kernel's sensors read from a directory laid out as sysfs lays it out: the same
/// code path as /sys, only the root differs. Units as the IIO and hwmon ABIs define them.
@Suite struct KernelClimateSensorTests {
    /// `root/bus/iio/devices/<device>/` (or `class/hwmon/`) with `files`, each a name and
    /// its contents.
    static func device(
        _ root: TemporaryDirectory, _ device: String, bus: KernelClimateSensor.Bus = .iio, _ files: [String: String]
    ) throws -> URL {
        let directory = root.url.appendingPathComponent(bus == .iio ? "bus/iio/devices" : "class/hwmon")
            .appendingPathComponent(device)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, text) in files {
            try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return directory
    }

    @Test func aBME280ReadsInDegreesPercentAndHectopascals() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        _ = try Self.device(root, "iio:device0", ["name": "ads1015\n"])
        _ = try Self.device(
            root, "iio:device1",
            [
                "name": "bme280\n", "in_temp_input": "21375\n", "in_humidityrelative_input": "45123\n",
                "in_pressure_input": "101.325000000\n",
            ])
        let sensor = try #require(KernelClimateSensor.find(driver: "bme280", bus: .iio, root: root.url))
        #expect(sensor.directory.lastPathComponent == "iio:device1")
        let values = try sensor.read()
        #expect(values.temperatureC == 21.375 && values.relativeHumidity == 45.123)
        #expect(abs((values.pressureHPa ?? 0) - 1013.25) < 1e-9 && values.co2PPM == nil)
        #expect(KernelClimateSensor.find(driver: "scd30", bus: .iio, root: root.url) == nil)
    }

    @Test func aRawChannelIsRawPlusOffsetTimesScale() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        // A BMP280 measures no humidity: that stays nil, never 0.
        let directory = try Self.device(
            root, "iio:device0",
            ["name": "bmp280", "in_temp_raw": "2500", "in_temp_offset": "-500", "in_temp_scale": "10.000000"])
        let values = try KernelClimateSensor(directory: directory, bus: .iio).read()
        #expect(values.temperatureC == 20 && values.relativeHumidity == nil && values.pressureHPa == nil)
    }

    @Test func anSCD30sConcentrationIsAPercentageAndReadsAsPPM() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let directory = try Self.device(
            root, "iio:device0",
            ["name": "scd30", "in_concentration_co2_raw": "6125", "in_concentration_co2_scale": "0.00001"])
        let values = try KernelClimateSensor(directory: directory, bus: .iio).read()
        #expect(abs((values.co2PPM ?? 0) - 612.5) < 1e-6)
    }

    @Test func anSHT3xOnHwmonReadsItsTemperatureAndHumidity() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        _ = try Self.device(root, "hwmon0", bus: .hwmon, ["name": "cpu_thermal", "temp1_input": "48000"])
        _ = try Self.device(
            root, "hwmon1", bus: .hwmon, ["name": "sht3x", "temp1_input": "-4250", "humidity1_input": "87500"])
        let sensor = try #require(KernelClimateSensor.find(driver: "sht3x", bus: .hwmon, root: root.url))
        #expect(try sensor.read() == ClimateValues(temperatureC: -4.25, relativeHumidity: 87.5))
    }

    @Test func anEIOIsToBeReadAgainAndNeverAValue() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let directory = try Self.device(root, "iio:device0", ["name": "dht11", "in_humidityrelative_input": "40000"])
        // Reading /proc/self/mem at offset 0 fails with EIO, as a DHT11's missed edge does.
        try FileManager.default.createSymbolicLink(
            atPath: directory.appendingPathComponent("in_temp_input").path, withDestinationPath: "/proc/self/mem")
        let sensor = KernelClimateSensor(directory: directory, bus: .iio)
        #expect(throws: KernelSensorError.busy(directory.appendingPathComponent("in_temp_input").path)) {
            try sensor.read()
        }
        #expect((try? sensor.read()) == nil)
        #expect(KernelSensorError.busy("x").isRetryable && !KernelSensorError.gone("x").isRetryable)
    }

    @Test func anUnpluggedDeviceIsGoneAndNonsenseIsNoNumber() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let directory = try Self.device(root, "iio:device0", ["name": "bme280", "in_temp_input": "twenty"])
        let sensor = KernelClimateSensor(directory: directory, bus: .iio)
        #expect(throws: KernelSensorError.malformed(directory.appendingPathComponent("in_temp_input").path, "twenty")) {
            try sensor.read()
        }
        try FileManager.default.removeItem(at: directory)
        #expect(throws: KernelSensorError.gone(directory.path)) { try sensor.read() }
        let empty = try Self.device(root, "iio:device1", ["name": "bme280"])
        #expect(throws: KernelSensorError.nothingMeasured(empty.path)) {
            try KernelClimateSensor(directory: empty, bus: .iio).read()
        }
    }
}
