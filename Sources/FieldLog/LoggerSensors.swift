import Foundation
import Platform
import Sensors
import Settings

/// The sensors the logger reads, their serial ports held for the run: the particulate one
/// of `[sensor]` and each `[sensor.NAME]`.
///
/// Contract: every `[sensor.NAME]` section must describe a sensor that can be read (else
/// ``holding(_:)`` throws, naming the section: the logger does not start with a sensor it
/// would silently never log); a serial port is held (``DeviceLock``) for as long as this
/// value lives, so `airloc sense` shows the logger's latest row instead of fighting over
/// the port. A port another process holds is not an error here: the readings fail, said
/// once, until it is free.
public final class LoggerSensors: Sendable {
    /// The particulate sensor (its port held while this value lives).
    public let particulate: SerialSensor?
    /// The `[sensor.NAME]` sensors, in the configuration's order.
    public let sensors: [(settings: ClimateSensorSettings, reading: ClimateReading)]
    private let locks: [DeviceLock]
    private let settings: Settings

    private init(
        _ settings: Settings, _ sensors: [(settings: ClimateSensorSettings, reading: ClimateReading)],
        locks: [DeviceLock]
    ) {
        (self.settings, self.sensors, self.locks) = (settings, sensors, locks)
        particulate = settings.sensor.plan.map { SerialSensor(plan: $0, holding: true) }
    }

    /// The sensors `settings` names, their serial ports taken.
    public static func holding(_ settings: Settings) throws(ClimateSettingsError) -> LoggerSensors {
        var sensors: [(settings: ClimateSensorSettings, reading: ClimateReading)] = []
        var locks: [DeviceLock] = []
        for section in settings.climateSensors {
            let reading = try section.reading.get()
            if let why = reading.contradiction { throw ClimateSettingsError("[sensor.\(section.name)]: \(why)") }
            sensors.append((section, reading))
            if case .serial(let plan) = reading, let lock = try? DeviceLock.acquire(plan.device) { locks.append(lock) }
        }
        return LoggerSensors(settings, sensors, locks: locks)
    }

    /// What the logger says it reads, one line per sensor.
    public var announcements: [String] {
        let particulate = settings.sensor.plan.map { plan in
            "reading the \(plan.model.displayName) on \(plan.device) every \(Int(settings.sensor.interval)) s"
        }
        return [particulate].compactMap { $0 }
            + sensors.map { section, reading in
                "reading [sensor.\(section.name)] \(reading.model.displayName) on \(reading.source) every "
                    + "\(Int(section.interval)) s"
            }
    }
}
