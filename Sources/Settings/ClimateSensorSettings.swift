import Foundation
import Readings
import Sensors

/// A `[sensor.NAME]` section: a CO₂ or climate sensor beside the particulate one of
/// `[sensor]` (docs/sensors.md).
///
/// Contract: `model` says which sensor; a UART model (`mh-z19`, `senseair-s8`, `scd30`)
/// takes `device`, a kernel one `iio` (`bme280`, `bmp280`, `bme680`, `scd30`, `scd4x`,
/// `dht11`) or `hwmon` (`sht3x`, `sht4x`, `htu21`), each a sysfs path or `auto` (the first
/// device whose driver is the model). ``reading`` is the sensor to read, or says what is
/// missing or contradictory, in the file's words.
public struct ClimateSensorSettings: Sendable, Equatable {
    /// The section's NAME.
    public var name: String
    /// Which sensor.
    public var model: ClimateModel?
    /// Its serial device (UART models).
    public var device: String?
    /// Its IIO device directory, or `auto`.
    public var iio: String?
    /// Its hwmon device directory, or `auto`.
    public var hwmon: String?
    /// Seconds before sampling (nil: the model's own, 180 for the MH-Z19).
    public var warmUpSeconds: Double?
    /// Seconds of sampling.
    public var sampleSeconds = 10.0
    /// The logger's reading interval.
    public var interval = 60.0
    /// Seconds without an answer before a reading is given up.
    public var timeout = 10.0
    /// The MH-Z19's automatic baseline calibration (nil: left as the sensor has it).
    public var abc: Bool?

    /// A section named `name`, with the defaults.
    public init(name: String) { self.name = name }

    /// How old its latest logged reading may be and still stand for now
    /// (``SensorSettings/freshness(interval:)``).
    public var freshness: TimeInterval { SensorSettings.freshness(interval: interval) }

    /// The sensor to read, or why the section cannot be read.
    public var reading: Result<ClimateReading, ClimateSettingsError> {
        let section = "[sensor.\(name)]"
        guard let model else {
            return .failure(.init("\(section) has no model (mh-z19, senseair-s8, scd30, bme280, …)"))
        }
        let warmUp = Duration.milliseconds(Int((warmUpSeconds ?? model.defaultWarmUpSeconds) * 1000))
        let sample = Duration.milliseconds(Int(sampleSeconds * 1000))
        let timeout = Duration.milliseconds(Int(timeout * 1000))
        let given = [("device", device), ("iio", iio), ("hwmon", hwmon)].filter { $0.1 != nil }.map(\.0)
        guard given.count == 1, let where_ = given.first else {
            let wanted = [model.speaksUART ? "device" : nil, model.kernelBus.map(\.rawValue)].compactMap { $0 }
            return .failure(
                .init(
                    "\(section) needs one of \(wanted.joined(separator: " or ")) for model = \(model.rawValue)"
                        + (given.count > 1 ? " (it has \(given.joined(separator: " and ")))" : "")))
        }
        switch where_ {
        case "device":
            guard model.speaksUART, let device else {
                return .failure(
                    .init(
                        "\(section): model = \(model.rawValue) is read through the kernel: set \(model.kernelBus?.rawValue ?? "iio"), not device"
                    ))
            }
            return .success(
                .serial(
                    ClimateCycle.Plan(
                        model: model, device: device, warmUp: warmUp, sample: sample, timeout: timeout, abc: abc)))
        default:
            let bus: KernelClimateSensor.Bus = where_ == "iio" ? .iio : .hwmon
            guard model.kernelBus == bus, let path = iio ?? hwmon else {
                let right = model.kernelBus.map { "set \($0.rawValue)" } ?? "set device (a serial port)"
                return .failure(.init("\(section): model = \(model.rawValue) is not a \(where_) device: \(right)"))
            }
            return .success(
                .kernel(
                    KernelReading(
                        model: model, bus: bus, path: path == "auto" ? nil : path, warmUp: warmUp, sample: sample)))
        }
    }
}

/// Why a `[sensor.NAME]` section cannot be read.
public struct ClimateSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the section.
    public var description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
