import AirQuality
import Airloc
import Foundation
import Gazetteer
import Geo
import Location
import Logbook
import Platform
import Sensors
import Settings
import Web

/// The field logger: follows the location, records track points and air readings in the
/// logbook as ``LogTrigger`` decides, fills the hours an outage missed, and keeps going
/// through every trouble it can outlive (`airloc log run`). The loop is ``AirFollow``'s,
/// the one `now --watch` runs too; what is written is ``LogbookWriter``'s.
///
/// Contract:
/// - Rows are stamped by ``GPSClock``: this device's clock until GPS time is trusted, GPS
///   time where the two disagree; rows this boot logged before that are re-stamped. The
///   air is not fetched before the clock is judged.
/// - An air fetch that fails leaves a `pending` row for each hour it misses (one per hour
///   and sent coordinate); the first success afterwards back-fills them (``Backfill``).
/// - A failed write (full disk, read-only file system) is reported and kept as the last
///   error; the logger carries on, and the next write tries again.
/// - Troubles (no position from the start or later, the air service, writing) are said
///   once when they begin and once when they end (``LoggerTroubles``); the logbook's last
///   error is the newest one still going on, and none after recovery.
/// - Times come from the events (when this device received a fix), not from when they
///   are processed, so a slow air fetch does not shift the track.
/// - The particulate sensor and each `[sensor.NAME]` sensor are read on their own
///   schedules; each one's rows carry its name, and each one's trouble is its own.
public struct FieldLogger: Sendable {
    /// The loop it runs.
    public private(set) var engine: AirFollow<LogbookWriter>

    /// Where it writes.
    public var logbook: Logbook { engine.consumer.logbook }
    /// When it records and fetches.
    public var trigger: LogTrigger { engine.trigger }
    /// What it makes of the clock.
    public var clock: GPSClock { engine.consumer.clock }
    /// Rows written by this run.
    public var written: Written { engine.consumer.written }

    /// Rows written by a run, by kind.
    public struct Written: Sendable, Equatable {
        /// Track points.
        public var track = 0
        /// Air readings (and pending hours settled).
        public var air = 0
        /// Pending hours recorded.
        public var pending = 0
        /// Hours back-filled.
        public var backfilled = 0
        /// Measured readings.
        public var sensor = 0

        /// Nothing written.
        public init() {}

        /// "this run wrote 12 track points, 1 air reading, …", as `log run` ends with it.
        public var summary: String {
            "this run wrote \(count: track, "track point"), \(count: air, "air reading"), "
                + "\(count: pending, "pending hour"), back-filled \(count: backfilled, "hour")"
                + (sensor > 0 ? ", \(count: sensor, "sensor reading")" : "")
        }
    }

    /// A logger writing `logbook` (the services, the clock and the boot clock injected for tests).
    public init(
        logbook: Logbook, settings: Settings, gazetteer: Gazetteer, accuracy: AccuracyAuthorization,
        transport: any HTTPTransport = NetworkTransport(), time: any TimeSource = SystemTime(),
        sensor: (any ParticulateSensor)? = nil,
        climate: [(settings: ClimateSensorSettings, reading: ClimateReading)] = [],
        bootID: String? = BootClock.bootID, bootSeconds: @escaping @Sendable () -> Double? = { BootClock.seconds },
        notify: @escaping @Sendable (LoggerNotice) -> Void = { _ in }
    ) {
        let writer = LogbookWriter(
            logbook: logbook, settings: settings, transport: transport, time: time, bootID: bootID,
            bootSeconds: bootSeconds, notify: notify)
        engine = AirFollow(consumer: writer, settings: settings, time: time, sensor: sensor, climate: climate) {
            fix, provider in
            await AirReport.make(
                fix: fix, provider: provider, accuracy: accuracy, settings: settings, gazetteer: gazetteer,
                request: AirReport.Request(climate: false), transport: transport, time: time)
        }
    }

    /// A fix (already limited to the allowed accuracy) from `provider`, received at
    /// `received` by this device's clock.
    public mutating func fixArrived(_ fix: Fix, provider: String, received: Date) async {
        await engine.fixArrived(fix, provider: provider, received: received)
    }

    /// Time passed: an air fetch (or a retry) may be due without a new fix; old rows may
    /// be due for pruning.
    public mutating func tick() async { await engine.tick() }

    /// The followed provider went away: the next point opens a new segment.
    public mutating func gap(_ reason: String) { engine.lost(reason, kind: .lost) }

    /// Logs `following` until the task is cancelled (SIGTERM), asleep until the next event
    /// or deadline (a sensor's reading, the air's next hour, the hourly prune) — also after
    /// its events end (a fixed place reports once and is then logged on the air's own schedule).
    public mutating func run(_ following: LocationSession.Following) async { await engine.run(following) }

    /// ``run(_:)`` until `context` asks it to stop: the event being handled is finished
    /// (its row written), the sensor's reading in progress is ended (the sensor asleep).
    public mutating func run(_ following: LocationSession.Following, until context: ServiceContext) async {
        await engine.run(following, until: context)
    }
}
