import Airloc
import Foundation
import Platform
import Sensors

/// The `[sensor.NAME]` sensors the logger reads, their serial ports held for the run.
///
/// Contract: every section must describe a sensor that can be read (else
/// ``holding(_:)`` throws, naming the section: the logger does not start with a sensor it
/// would silently never log); a serial port is held (``DeviceLock``) for as long as this
/// value lives, so `airloc sense` shows the logger's latest row instead of fighting over
/// the port. A port another process holds is not an error here: the readings fail, said
/// once, until it is free.
public final class ClimateSensors: Sendable {
    /// The sensors, in the configuration's order.
    public let sensors: [(settings: ClimateSensorSettings, reading: ClimateReading)]
    private let locks: [DeviceLock]

    private init(_ sensors: [(settings: ClimateSensorSettings, reading: ClimateReading)], locks: [DeviceLock]) {
        (self.sensors, self.locks) = (sensors, locks)
    }

    /// The sensors `settings` names, their serial ports taken.
    public static func holding(_ settings: Settings) throws(ClimateSettingsError) -> ClimateSensors {
        var sensors: [(settings: ClimateSensorSettings, reading: ClimateReading)] = []
        var locks: [DeviceLock] = []
        for section in settings.climateSensors {
            let reading = try section.reading.get()
            sensors.append((section, reading))
            if case .serial(let plan) = reading, let lock = try? DeviceLock.acquire(plan.device) { locks.append(lock) }
        }
        return ClimateSensors(sensors, locks: locks)
    }

    /// What the logger says it reads, one line per sensor.
    public var announcements: [String] {
        sensors.map { section, reading in
            "reading [sensor.\(section.name)] \(reading.model.displayName) on \(reading.source) every "
                + "\(Int(section.interval)) s"
        }
    }
}
