import Foundation
import Readings

#if canImport(Glibc)
    import Glibc
#endif

/// A climate or CO₂ sensor the kernel drives, read from sysfs: an IIO device
/// (Documentation/ABI/testing/sysfs-bus-iio: `bmp280`, `bme680`, `scd30`, `scd4x`,
/// `dht11`) or a hwmon one (Documentation/hwmon/sysfs-interface: `sht3x`, `sht4x`,
/// `htu21`).
///
/// Contract:
/// - Each value is read from its own file, opened afresh (sysfs gives a new reading per
///   open): IIO `in_<channel>_input`, else `in_<channel>_raw` as (raw + `_offset`) ×
///   `_scale`; hwmon `temp1_input` and `humidity1_input`. A channel whose files are not
///   there is not measured (nil), never 0.
/// - Units as the ABI defines them, converted once: milli-°C → °C, milli-% → %, kPa →
///   hPa, and concentration (a percentage) → ppm.
/// - A read that fails with EIO or EAGAIN (a DHT11 missing an edge) is
///   ``KernelSensorError/busy(_:)``, to be read again, never a value; a device whose
///   directory went away is ``KernelSensorError/gone(_:)``.
/// - ``find(driver:bus:root:)`` finds a device by the driver's name in its `name` file; the
///   `root` is `/sys` except in tests, which lay a directory out as sysfs does.
public struct KernelClimateSensor: Sendable {
    /// Which kernel subsystem drives it.
    public enum Bus: String, Sendable {
        case iio, hwmon

        /// Where its devices are listed, under `root`.
        func devices(root: URL) -> URL {
            root.appendingPathComponent(self == .iio ? "bus/iio/devices" : "class/hwmon")
        }
    }

    /// The device's directory (`/sys/bus/iio/devices/iio:device0`).
    public let directory: URL
    /// Its subsystem.
    public let bus: Bus

    /// The sensor at `directory`.
    public init(directory: URL, bus: Bus) { (self.directory, self.bus) = (directory, bus) }

    /// The first device (in name order) whose `name` file holds `driver`; nil when none does.
    public static func find(driver: String, bus: Bus, root: URL = URL(fileURLWithPath: "/sys")) -> KernelClimateSensor?
    {
        let list = bus.devices(root: root)
        let entries = ((try? FileManager.default.contentsOfDirectory(atPath: list.path)) ?? []).sorted()
        for entry in entries {
            let directory = list.appendingPathComponent(entry)
            if (try? text(directory.appendingPathComponent("name"))) == driver {
                return KernelClimateSensor(directory: directory, bus: bus)
            }
        }
        return nil
    }

    /// The driver's name, from the device's `name` file.
    public func driver() throws(KernelSensorError) -> String { try Self.text(file("name")) }

    /// One reading of every channel the device has.
    public func read() throws(KernelSensorError) -> ClimateValues {
        guard FileManager.default.fileExists(atPath: directory.path) else { throw .gone(directory.path) }
        var values = ClimateValues()
        switch bus {
        case .iio:
            values.temperatureC = try iio("temp").map { $0 / 1000 }
            values.relativeHumidity = try iio("humidityrelative").map { $0 / 1000 }
            values.pressureHPa = try iio("pressure").map { $0 * 10 }
            values.co2PPM = try iio("concentration_co2").map { $0 * 10_000 }
        case .hwmon:
            values.temperatureC = try number(file("temp1_input")).map { $0 / 1000 }
            values.relativeHumidity = try number(file("humidity1_input")).map { $0 / 1000 }
        }
        // A value scaled past sense (a raw of 1e300) is no reading: left out, as a frame's is.
        values = values.possible
        guard !values.isEmpty else { throw .nothingMeasured(directory.path) }
        return values
    }

    private func file(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// An IIO channel in its ABI unit: processed, or raw with its offset and scale.
    private func iio(_ channel: String) throws(KernelSensorError) -> Double? {
        if let processed = try number(file("in_\(channel)_input")) { return processed }
        guard let raw = try number(file("in_\(channel)_raw")) else { return nil }
        let offset = try number(file("in_\(channel)_offset")) ?? 0
        let scale = try number(file("in_\(channel)_scale")) ?? 1
        return (raw + offset) * scale
    }

    /// The number a file holds; nil when the file is not there.
    private func number(_ url: URL) throws(KernelSensorError) -> Double? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let text = try Self.text(url)
        guard let value = Double(text), value.isFinite else { throw .malformed(url.path, text) }
        return value
    }

    /// A sysfs file's text, without its newline: one `read` of a fresh descriptor.
    static func text(_ url: URL) throws(KernelSensorError) -> String {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(url.path, errno) }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        guard count >= 0 else { throw failure(url.path, errno) }
        return String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func failure(_ path: String, _ number: Int32) -> KernelSensorError {
        switch number {
        case EIO, EAGAIN, EBUSY, ETIMEDOUT: return .busy(path)
        case ENOENT, ENODEV, ENXIO: return .gone(path)
        default: return .unreadable(path, String(cString: strerror(number)))
        }
    }
}

/// Why a kernel sensor gave no reading.
public enum KernelSensorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The driver could not read the sensor this time (EIO, EAGAIN): read it again.
    case busy(String)
    /// The device is not there (unbound, unplugged).
    case gone(String)
    /// A file that cannot be read for another reason (permissions).
    case unreadable(String, String)
    /// A file that does not hold a number.
    case malformed(String, String)
    /// The device has none of the channels airloc reads.
    case nothingMeasured(String)

    /// True when reading again within the sample window may succeed.
    public var isRetryable: Bool { if case .busy = self { return true } else { return false } }

    /// The problem in words.
    public var description: String {
        switch self {
        case .busy(let path): return "\(path): the driver could not read the sensor this time"
        case .gone(let path): return "\(path): the device is not there (unplugged, or its driver unbound)"
        case .unreadable(let path, let reason): return "\(path): \(reason)"
        case .malformed(let path, let text): return "\(path) does not hold a number: \"\(text.prefix(40))\""
        case .nothingMeasured(let path):
            return "\(path) has no temperature, humidity, pressure or CO₂ channel"
        }
    }
}

extension ClimateModel {
    /// The kernel subsystem whose driver reads it, nil for a UART-only model.
    public var kernelBus: KernelClimateSensor.Bus? {
        switch self {
        case .mhZ19, .senseairS8: return nil
        case .scd30, .scd4x, .bme280, .bmp280, .bme680, .dht11: return .iio
        case .sht3x, .sht4x, .htu21: return .hwmon
        }
    }
}
