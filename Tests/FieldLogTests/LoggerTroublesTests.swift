import FieldLog
import Foundation
import Sensors
import Testing

@testable import Logbook

/// What the logger says about troubles, and what `log status` shows as the last error.
struct LoggerTroublesTests {
    let full = LoggerNotice(level: .error, message: "writing a track point failed: disk full; will retry")

    @Test func aRepeatedTroubleIsSaidOnceAndItsEndOnceWithTheCount() {
        var troubles = LoggerTroubles()
        #expect(troubles.happened(.storage, full) == [.say(full), .record(full.message)])
        for _ in 0..<14 { #expect(troubles.happened(.storage, full).isEmpty) }
        let ended = troubles.ended(.storage, saying: "writing to the logbook works again")
        #expect(
            ended == [
                .say(.init(level: .info, message: "writing to the logbook works again (after 15 failures)")), .clear,
            ])
        #expect(troubles.ended(.storage, saying: "again").isEmpty, "an end is said once")
    }

    /// A full disk fails the track's and the sensor's writes in turn: one trouble, said
    /// once, its end once with every failure counted (it used to be said at each turn).
    @Test func oneCauseInOtherWordsIsOneTrouble() {
        var troubles = LoggerTroubles()
        let sensor = LoggerNotice(level: .error, message: "writing a sensor reading failed: disk full; will retry")
        #expect(troubles.happened(.storage, full, cause: "disk full") == [.say(full), .record(full.message)])
        for _ in 0..<5 {
            #expect(troubles.happened(.storage, sensor, cause: "disk full").isEmpty)
            #expect(troubles.happened(.storage, full, cause: "disk full").isEmpty)
        }
        let ended = troubles.ended(.storage, saying: "writing to the logbook works again")
        #expect(
            ended.first == .say(.init(level: .info, message: "writing to the logbook works again (after 11 failures)")))
    }

    /// Each `[sensor.NAME]` sensor's trouble is its own: one pulled out is said once
    /// however often it fails, another failing too is said too, and one coming back ends
    /// only its own trouble, the last error then being the other's.
    @Test func eachSensorsTroubleIsItsOwn() {
        var troubles = LoggerTroubles()
        let room = LoggerNotice(level: .warning, message: "no reading of [sensor.room]: gone; will try again")
        let co2 = LoggerNotice(level: .warning, message: "no reading of [sensor.co2]: silent; will try again")
        #expect(
            troubles.happened(sensorNamed: "room", room, cause: "room gone") == [.say(room), .record(room.message)])
        for _ in 0..<5 { #expect(troubles.happened(sensorNamed: "room", room, cause: "room gone").isEmpty) }
        #expect(troubles.happened(sensorNamed: "co2", co2) == [.say(co2), .record(co2.message)])
        #expect(troubles.current(sensorNamed: "room") == room.message && troubles.current(.sensor) == nil)
        let back = troubles.ended(sensorNamed: "room", saying: "[sensor.room] gives readings again")
        #expect(
            back == [
                .say(.init(level: .info, message: "[sensor.room] gives readings again (after 6 failures)")),
                .record(co2.message),
            ])
        #expect(troubles.ended(sensorNamed: "room", saying: "again").isEmpty, "an end is said once")
        #expect(troubles.current(sensorNamed: "co2") == co2.message)
    }

    /// The logbook cannot take its own last error (a full disk, here a read-only file): it
    /// goes to a note on the runtime tmpfs, which `log status` shows, and goes away once the
    /// logbook takes errors again.
    @Test func anErrorTheLogbookCannotTakeIsStillShown() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("airloc-note-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("logbook.sqlite")
        defer { LastErrorNote(logbook: url).write(nil, at: Date()) }
        let writable = try Logbook(url: url)
        let reader = try Logbook(url: url, readOnly: true)
        let when = Date(timeIntervalSince1970: 1_795_000_000)
        #expect(throws: LogbookError.self) {
            try reader.recordError("writing a track point failed: disk full", at: when)
        }
        let status = try writable.status(now: when)
        #expect(status.lastError == "writing a track point failed: disk full" && status.lastErrorAt != nil, "\(status)")
        try writable.recordError(nil, at: when)
        #expect(try writable.status(now: when).lastError == nil, "the note went with the recovery")
    }

    @Test func aSensorPulledOutIsOneTroubleWhetherAReadingWasUnderWayOrNot() {
        var troubles = LoggerTroubles()
        let path = "/dev/airloc-pm"
        // Pulled out mid-reading, then absent at the next: one absence, said once.
        let gone = SensorFailure.device(path, reason: "\(path) went away (end of file)", kind: .gone)
        let missing = SensorFailure.device(path, reason: "\(path) does not exist", kind: .missing)
        let notice = { (failure: SensorFailure) in
            LoggerNotice(level: .warning, message: "no sensor reading: \(failure)")
        }
        #expect(troubles.happened(.sensor, notice(gone), cause: gone.absence).count == 2)
        #expect(troubles.happened(.sensor, notice(missing), cause: missing.absence).isEmpty)
        // Another failure of the sensor is another trouble, said.
        let silent = SensorFailure.silent(path)
        #expect(troubles.happened(.sensor, notice(silent), cause: silent.absence).count == 2)
        #expect(silent.absence == nil && gone.absence == missing.absence)
    }

    @Test func aChangedMessageIsSaidAgain() {
        var troubles = LoggerTroubles()
        _ = troubles.happened(.air, .init(level: .warning, message: "air quality not fetched (HTTP 500)"))
        let other = LoggerNotice(level: .warning, message: "air quality not fetched (timed out)")
        #expect(troubles.happened(.air, other) == [.say(other), .record(other.message)])
    }

    /// The last error is the newest trouble still going on; none once all ended.
    @Test func theLastErrorFollowsWhatIsStillWrong() {
        var troubles = LoggerTroubles()
        let gpsd = LoggerNotice(level: .warning, message: "no position: gpsd refused; waiting", remedy: .checkGPSD)
        let air = LoggerNotice(level: .warning, message: "air quality not fetched (HTTP 500)")
        _ = troubles.happened(.position, gpsd)
        _ = troubles.happened(.air, air)
        #expect(troubles.ended(.air, saying: "air quality fetched again").last == .record(gpsd.message))
        #expect(troubles.ended(.position, saying: "position back").last == .clear)
        #expect(troubles.current(.position) == nil)
    }

    /// A flapping trouble (a full disk where a row sometimes still fits) ends only after
    /// enough successes in a row.
    @Test func aTroubleEndsAfterSuccessesInARow() {
        var troubles = LoggerTroubles()
        _ = troubles.happened(.storage, full)
        #expect(troubles.ended(.storage, saying: "works again", successes: 3).isEmpty)
        #expect(troubles.happened(.storage, full).isEmpty, "the same trouble, not said again")
        #expect(troubles.ended(.storage, saying: "works again", successes: 3).isEmpty)
        #expect(troubles.ended(.storage, saying: "works again", successes: 3).isEmpty)
        #expect(troubles.ended(.storage, saying: "works again", successes: 3).count == 2)
    }
}
