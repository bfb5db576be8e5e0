import Foundation
import Sensors

/// `[sensor]`: the particulate sensor on the serial port, if there is one (docs/sensors.md).
///
/// Contract: a sensor is configured exactly when `model` is set. The device is
/// `AIRLOC_SENSOR_DEVICE`, else `[sensor] device`, else `/dev/airloc-pm` when that link
/// exists (the udev rule in docs/sensors.md), else `/dev/ttyUSB0`. The `epa-pms`
/// correction needs humidity, so only the PMS5003T takes it.
public struct SensorSettings: Sendable, Equatable {
    public var model: SensorModel?
    public var device: String?
    public var warmUpSeconds = 30.0
    public var sampleSeconds = 10.0
    /// The logger's reading interval.
    public var interval = 60.0
    public var sleepBetween = true
    public var timeout = 10.0
    public var correction = SensorSample.Correction.none
    public var humidityLimit = 70.0

    public init() {}

    /// The link the udev rule makes, and the adapter's usual node without it.
    public static let preferredDevice = "/dev/airloc-pm"
    public static let fallbackDevice = "/dev/ttyUSB0"

    /// The device to open.
    public var resolvedDevice: String {
        if let device { return device }
        return FileManager.default.fileExists(atPath: Self.preferredDevice) ? Self.preferredDevice : Self.fallbackDevice
    }

    /// The plan of one reading, or nil without a sensor.
    public var plan: SensorCycle.Plan? {
        guard let model else { return nil }
        return SensorCycle.Plan(
            model: model, device: resolvedDevice, warmUp: .milliseconds(Int(warmUpSeconds * 1000)),
            sample: .milliseconds(Int(sampleSeconds * 1000)), timeout: .milliseconds(Int(timeout * 1000)),
            sleepAfter: sleepBetween, correction: correction, humidityLimit: humidityLimit)
    }
}
