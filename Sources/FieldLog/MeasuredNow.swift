import AirQuality
import Airloc
import Foundation
import Logbook
import Platform
import Sensors
import Settings

/// The measured air for a report made now (`airloc now`): the logger's latest reading
/// while it is fresh (the logger holds the sensor, which is for one program at a time),
/// else a reading made for the report; with the NowCast of the logbook's measured hours.
///
/// Contract: nil without `[sensor] model`. A logbook that is missing or unreadable only
/// means no logged reading and no NowCast; a sensor that fails is ``MeasuredAir/failed(_:)``,
/// never an error of the report.
public enum MeasuredNow {
    /// The measured air for a report made at `now`.
    public static func measure(
        _ settings: Settings, now: Date = Date(), sensor: (any ParticulateSensor)? = nil
    ) async -> MeasuredAir? {
        guard let plan = settings.sensor.plan else { return nil }
        let logbook = try? Logbook(url: settings.logDatabase, readOnly: true)
        var nowcast: Int?
        if let logbook, let hours = try? logbook.hourlyPM2_5(before: now) { nowcast = NowCast.pm2_5AQI(hours) }
        if let latest = try? logbook?.latestSensorRecord(),
            now.timeIntervalSince(latest.time) < settings.sensor.freshness,
            let sample = latest.sample(device: plan.device)
        {
            return .reading(
                MeasuredReading(
                    sample: sample, ageSeconds: max(0, now.timeIntervalSince(latest.time)), fromLogbook: true,
                    nowcastUSAQI: nowcast))
        }
        // A signal during the reading puts the woken sensor to sleep before `now` ends.
        let reading = await SignalWatch.cleaningUp(notice: SerialSensor.interruptedNotice) {
            await (sensor ?? SerialSensor(plan: plan)).reading()
        }
        switch reading {
        case .success(let sample): return .reading(MeasuredReading(sample: sample, nowcastUSAQI: nowcast))
        case .failure(let failure): return .failed(failure)
        }
    }

    /// `airloc sense`: a reading made now, or, while the logger holds the sensor
    /// (``DeviceLock``), the logger's latest row (``MeasuredReading/heldBy``), the port
    /// untouched; with the signal that cut a reading short (the sensor is asleep then).
    /// `inside`: the caller already watches for signals (``EverySensor``) and cancels this
    /// task on one.
    public static func sense(_ plan: SensorCycle.Plan, settings: Settings, now: Date = Date(), inside: Bool = false)
        async -> (
            outcome: Result<MeasuredReading, SensorFailure>, signal: Int32?
        )
    {
        if let pid = DeviceLock.holder(of: plan.device) {
            let logbook = try? Logbook(url: settings.logDatabase, readOnly: true)
            guard let latest = try? logbook?.latestSensorRecord(), let sample = latest.sample(device: plan.device)
            else { return (.failure(.held(plan.device, pid: pid)), nil) }
            let age = max(0, now.timeIntervalSince(latest.time))
            return (.success(MeasuredReading(sample: sample, ageSeconds: age, fromLogbook: true, heldBy: pid)), nil)
        }
        if inside { return (await SerialSensor(plan: plan).reading().map { MeasuredReading(sample: $0) }, nil) }
        let (reading, signal) = await SignalWatch.untilSignalled { await SerialSensor(plan: plan).reading() }
        return (reading.map { MeasuredReading(sample: $0) }, signal)
    }
}

extension MeasuredNow {
    /// Every `[sensor.NAME]` sensor's reading for a report made at `now`, read side by side:
    /// each one's latest row while it is younger than two of its intervals (at least two
    /// minutes), else a reading made now; a section that cannot be read is its failure.
    public static func climate(_ settings: Settings, now: Date = Date()) async -> [MeasuredClimate] {
        let logbook = try? Logbook(url: settings.logDatabase, readOnly: true)
        return await withTaskGroup(of: (Int, MeasuredClimate?).self) { group in
            for (index, section) in settings.climateSensors.enumerated() {
                guard let model = section.model, case .success(let reading) = section.reading else { continue }
                if let row = try? logbook?.latestSensorRecord(named: section.name),
                    now.timeIntervalSince(row.time) < section.freshness,
                    let logged = row.climate(source: reading.source)
                {
                    let age = max(0, now.timeIntervalSince(row.time))
                    group.addTask {
                        (
                            index,
                            MeasuredClimate(
                                name: section.name, model: model, place: reading.place, outcome: .success(logged),
                                ageSeconds: age, fromLogbook: true)
                        )
                    }
                    continue
                }
                group.addTask {
                    let outcome = await reading.read()
                    return (
                        index, MeasuredClimate(name: section.name, model: model, place: reading.place, outcome: outcome)
                    )
                }
            }
            var all: [(Int, MeasuredClimate?)] = []
            for await entry in group { all.append(entry) }
            return all.sorted { $0.0 < $1.0 }.compactMap(\.1)
        }
    }
}
