import Foundation
import Readings
import Sensors

/// `[sensor]`: the particulate sensor on the serial port, if there is one (docs/sensors.md).
///
/// Contract: a sensor is configured exactly when `model` is set. The device is
/// `AIRLOC_SENSOR_DEVICE`, else `[sensor] device`, else `/dev/airloc-pm` when that link
/// exists (the udev rule in docs/sensors.md), else `/dev/ttyUSB0`. The `epa-pms`
/// correction needs humidity: a PMS5003T's own, or that of the `[sensor.NAME]` sensor
/// `humidity-from` names, which then also decides the humidity flag.
public struct SensorSettings: Sendable, Equatable {
    /// Which sensor (nil: none).
    public var model: SensorModel?
    /// Its serial device.
    public var device: String?
    /// Seconds the fan runs before sampling.
    public var warmUpSeconds = 30.0
    /// Seconds of sampling.
    public var sampleSeconds = 10.0
    /// The logger's reading interval.
    public var interval = 60.0
    /// Sleep between readings (the laser lasts longer).
    public var sleepBetween = true
    /// Seconds without an answer before a reading is given up.
    public var timeout = 10.0
    /// The correction applied to PM2.5.
    public var correction = SensorSample.Correction.none
    /// Above this humidity (%) a reading is flagged.
    public var humidityLimit = 70.0
    /// The `[sensor.NAME]` whose humidity the correction and the flag use (nil: the
    /// particulate sensor's own).
    public var humidityFrom: String?

    /// The defaults (docs/sensors.md).
    public init() {}

    /// How old the logger's latest reading may be and still stand for now: two intervals,
    /// at least two minutes. The one rule of every outlet: older, it leads neither the card
    /// (`now`, the page, `/api/now`), nor `/metrics`' measured series, nor `/data.json`.
    public var freshness: TimeInterval { Self.freshness(interval: interval) }

    /// The freshness rule for a sensor read every `interval` seconds: two intervals, at
    /// least two minutes (the particulate sensor's and each `[sensor.NAME]`'s alike).
    public static func freshness(interval: Double) -> TimeInterval { max(120, 2 * interval) }

    /// The link the udev rule makes, and the adapter's usual node without it.
    public static let preferredDevice = "/dev/airloc-pm"
    /// The device when none is set.
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
