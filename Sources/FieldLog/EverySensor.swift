import Airloc
import Foundation
import Logbook
import Platform
import Readings
import Sensors
import Settings

/// One configured sensor's reading for `airloc sense`: the particulate one of `[sensor]`
/// (named `sensor`) or a CO₂ or climate one of `[sensor.NAME]`.
///
/// Contract: `outcome` is the reading or why there is none; a failure of one sensor is
/// its own and never another's.
public struct SensorReading: Sendable {
    /// What it measured.
    public enum Measured: Sendable {
        case particulate(MeasuredReading)
        case climate(ClimateSample)
    }

    /// `sensor` for `[sensor]`, NAME for `[sensor.NAME]`.
    public var name: String
    /// Its model, as the configuration names it.
    public var model: String
    /// Which key says where it is (`device`, `iio`, `hwmon`) and what it says.
    public var place: (key: String, value: String)
    /// The reading, or why there is none.
    public var outcome: Result<Measured, SensorFailure>
    /// The logger that holds the sensor and how old its latest row is, when that row is the
    /// reading (nil: made now).
    public var logged: (pid: Int32, ageSeconds: Double)? = nil
}

/// `airloc sense`: every configured sensor read at once, or the one `--sensor NAME` names.
///
/// Contract: the sensors are read side by side (each on its own port or sysfs directory),
/// so the whole takes as long as the slowest; a sensor that fails is reported with its
/// failure and the others still are; the particulate sensor keeps its rules
/// (``MeasuredNow/sense(_:settings:now:)``: the logger's latest reading while the logger
/// holds it). A signal ends every reading, a woken particulate sensor put to sleep first.
public enum EverySensor {
    /// Why nothing is read: the configuration does not name what was asked (exit 78).
    public struct Unconfigured: Error, Sendable, CustomStringConvertible {
        /// What is missing, in the configuration's words.
        public var description: String
    }

    /// The sensors to read: all, or the one named `only` (`sensor`: `[sensor]`).
    public static func chosen(_ settings: Settings, only: String?) -> Result<
        (particulate: SensorCycle.Plan?, climate: [(ClimateSensorSettings, ClimateReading)]), Unconfigured
    > {
        var particulate = settings.sensor.plan
        var named = settings.climateSensors
        if let only {
            if only == "sensor" {
                named = []
                guard particulate != nil else { return .failure(Unconfigured(description: "[sensor] has no model")) }
            } else {
                particulate = nil
                named = named.filter { $0.name == only }
                guard !named.isEmpty else {
                    let names = (settings.sensor.model == nil ? [] : ["sensor"]) + settings.climateSensors.map(\.name)
                    return .failure(
                        Unconfigured(
                            description: "no sensor named '\(only)': "
                                + (names.isEmpty
                                    ? "none is configured" : "configured: \(names.joined(separator: ", "))")))
                }
            }
        }
        guard particulate != nil || !named.isEmpty else {
            return .failure(
                Unconfigured(
                    description: "no sensor configured: set [sensor] model (sds011, pms5003, ... sps30) or a "
                        + "[sensor.NAME] section (mh-z19, senseair-s8, scd30, bme280, ...; docs/sensors.md)"))
        }
        var climate: [(ClimateSensorSettings, ClimateReading)] = []
        for section in named {
            switch section.reading {
            case .success(let reading):
                if let why = reading.contradiction {
                    return .failure(Unconfigured(description: "[sensor.\(section.name)]: \(why)"))
                }
                climate.append((section, reading))
            case .failure(let error): return .failure(Unconfigured(description: error.description))
            }
        }
        return .success((particulate, climate))
    }

    /// Reads the chosen sensors side by side, in the configuration's order (`[sensor]` first).
    public static func sense(
        particulate: SensorCycle.Plan?, climate: [(ClimateSensorSettings, ClimateReading)], settings: Settings
    ) async -> (readings: [SensorReading], signal: Int32?) {
        let named = climate.map { ($0.0.name, $0.1) }
        let (readings, signal) = await SignalWatch.untilSignalled { () -> [SensorReading] in
            await withTaskGroup(of: (Int, SensorReading).self) { group in
                if let particulate {
                    group.addTask {
                        let (outcome, _) = await MeasuredNow.sense(particulate, settings: settings, inside: true)
                        return (
                            0,
                            SensorReading(
                                name: "sensor", model: particulate.model.rawValue,
                                place: ("device", particulate.device),
                                outcome: outcome.map(SensorReading.Measured.particulate))
                        )
                    }
                }
                for (index, (name, reading)) in named.enumerated() {
                    group.addTask {
                        let (outcome, logged) = await Self.climate(name, reading, settings: settings)
                        return (
                            index + 1,
                            SensorReading(
                                name: name, model: reading.model.rawValue,
                                place: (reading.place.key, (try? outcome.get())?.source ?? reading.source),
                                outcome: outcome.map(SensorReading.Measured.climate), logged: logged)
                        )
                    }
                }
                var all: [(Int, SensorReading)] = []
                for await reading in group { all.append(reading) }
                return all.sorted { $0.0 < $1.0 }.map(\.1)
            }
        }
        return (lend(readings, settings: settings), signal)
    }

    /// The particulate reading made now with the humidity `humidity-from` lends it from the
    /// same run's `[sensor.NAME]` reading (see ``BorrowedHumidity``).
    static func lend(_ readings: [SensorReading], settings: Settings) -> [SensorReading] {
        guard let section = BorrowedHumidity.section(settings),
            let lender = readings.first(where: { $0.name == section.name }),
            case .success(.climate(let sample)) = lender.outcome, let humidity = sample.mean.relativeHumidity,
            (lender.logged?.ageSeconds ?? 0) < section.freshness
        else { return readings }
        return readings.map { reading in
            guard case .success(.particulate(var measured)) = reading.outcome, !measured.fromLogbook else {
                return reading
            }
            measured.sample = BorrowedHumidity.apply(humidity, to: measured.sample, settings: settings)
            var lent = reading
            lent.outcome = .success(.particulate(measured))
            return lent
        }
    }
}

extension EverySensor {
    /// A `[sensor.NAME]` reading: made now, or, while the logger holds its serial port
    /// (``DeviceLock``), the logger's latest row, the port untouched.
    static func climate(_ name: String, _ reading: ClimateReading, settings: Settings, now: Date = Date()) async
        -> (Result<ClimateSample, SensorFailure>, logged: (pid: Int32, ageSeconds: Double)?)
    {
        guard case .serial(let plan) = reading, let pid = DeviceLock.holder(of: plan.device) else {
            return (await reading.read(), nil)
        }
        let logbook = try? Logbook(url: settings.logDatabase, readOnly: true)
        guard let row = try? logbook?.latestSensorRecord(named: name), let sample = row.climate(source: reading.source)
        else {
            return (.failure(.held(plan.device, pid: pid)), nil)
        }
        return (.success(sample), (pid, max(0, now.timeIntervalSince(row.time))))
    }
}

extension SenseJSON {
    /// `sense --json`'s document of `readings`: the top-level keys the particulate
    /// reading's (null without one), every reading in ``sensors``, a failure as its `error`.
    public init(_ readings: [SensorReading], now: Date = Date()) {
        self.init(sensors: [], now: now)
        var entries: [Sensor] = []
        for reading in readings {
            var entry = Sensor(
                name: reading.name, model: reading.model, key: reading.place.key, value: reading.place.value)
            switch reading.outcome {
            case .success(.particulate(let measured)):
                self = SenseJSON(measured, now: now)
                entry.set(measured.sample)
            case .success(.climate(let sample)):
                entry.set(sample)
                entry.ageS = reading.logged.map { ($0.ageSeconds * 10).rounded() / 10 }
            case .failure(let failure): entry.error = failure.description
            }
            entries.append(entry)
        }
        sensors = entries
    }
}
