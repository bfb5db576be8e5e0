import AirQuality
import Readings
import Testing

@testable import Sensors

/// The driver's rules, on the caller's clock: no test waits for a warm-up.
@Suite struct SensorCycleTests {
    let t0 = ContinuousClock.now
    func at(_ seconds: Double) -> ContinuousClock.Instant { t0 + .milliseconds(Int(seconds * 1000)) }

    func plan(_ model: SensorModel = .sds011, sleepAfter: Bool = true) -> SensorCycle.Plan {
        SensorCycle.Plan(
            model: model, device: "/dev/test", warmUp: .seconds(30), sample: .seconds(10), timeout: .seconds(10),
            sleepAfter: sleepAfter)
    }

    func reading(_ pm25: Double) -> SensorFrame {
        .values(ParticulateValues(pm2_5: pm25, pm10: pm25 * 2), sensorID: "A160")
    }

    /// Runs a sensor that answers every poll with `value(second)` (nil: silence) from 0 s.
    func run(_ cycle: inout SensorCycle, until limit: Double = 100, value: (Double) -> Double?) -> (
        SensorCycle.Action, sent: [[UInt8]], at: Double
    ) {
        var action = cycle.start(at: at(0))
        var sent = action.send
        var second = 0.0
        while action.outcome == nil && second < limit {
            second += 1
            if let pm = value(second) { action = cycle.received(reading(pm), at: at(second - 0.5)) }
            action = cycle.tick(at: at(second))
            sent += action.send
        }
        return (action, sent, second)
    }

    @Test func warmUpReadingsAreDroppedAndTheWindowIsAveragedThenTheSensorSleeps() throws {
        var cycle = SensorCycle(plan())
        // Unstable values while warming up, 10 and 20 alternating after 30 s.
        let (action, sent, second) = run(&cycle) { $0 <= 30 ? 500 : (Int($0) % 2 == 0 ? 10 : 20) }
        let sample = try #require(try action.outcome?.get())
        #expect(sample.mean.pm2_5 == 15 && sample.samples == 10 && sample.windowSeconds == 10)
        #expect(second == 40, "wake at 0, 30 s warm-up, 10 s window")
        #expect(sent.first == SDS011Protocol.work && sent.last == SDS011Protocol.sleep)
        #expect(sample.serial == "A160" && sample.flags.isEmpty && sample.usAQI == 62)
    }

    @Test func aSensorThatNeverAnswersFailsAtTheTimeoutNotAfterTheWarmUp() {
        var cycle = SensorCycle(plan())
        let (action, sent, second) = run(&cycle) { _ in nil }
        #expect(action.outcome == .failure(.noAnswer("/dev/test")))
        #expect(second == 10)
        #expect(!sent.contains(SDS011Protocol.sleep), "nothing answered: nothing to put to sleep")
    }

    @Test func bytesThatAreNeverAFrameFailAsNotASensor() {
        var cycle = SensorCycle(plan())
        var action = cycle.start(at: at(0))
        for second in 1...10 {
            _ = cycle.received(.refused(.checksum), at: at(Double(second) - 0.5))
            action = cycle.tick(at: at(Double(second)))
        }
        #expect(action.outcome == .failure(.notASensor("/dev/test")))
    }

    @Test func silenceAfterAnsweringFailsAndStillPutsTheSensorToSleep() {
        var cycle = SensorCycle(plan())
        let (action, sent, second) = run(&cycle) { $0 <= 5 ? 8 : nil }
        #expect(action.outcome == .failure(.silent("/dev/test")))
        #expect(second == 15 && sent.last == SDS011Protocol.sleep)
    }

    @Test func aDeviceThatWentAwayEndsTheCycleWithoutCommands() {
        var cycle = SensorCycle(plan(.pms5003))
        _ = cycle.start(at: at(0))
        _ = cycle.received(reading(5), at: at(0.5))
        let action = cycle.deviceFailed(.device("/dev/test", reason: "gone", kind: .gone))
        #expect(action.send.isEmpty && action.outcome == .failure(.device("/dev/test", reason: "gone", kind: .gone)))
    }

    @Test func aCancelledReadingPutsAnAnsweringSensorToSleep() {
        var cycle = SensorCycle(plan())
        _ = cycle.start(at: at(0))
        _ = cycle.received(reading(5), at: at(0.5))
        let action = cycle.cancelled()
        #expect(action.send == [SDS011Protocol.sleep])
        guard case .failure? = action.outcome else { return #expect(Bool(false), "a cancelled reading is no reading") }
    }

    /// Cancelled between the wake and the first answer (its frame still on the wire): the
    /// sensor was woken, so it is put to sleep; a cycle never started sends nothing.
    @Test func aCancelledReadingPutsAWokenSensorToSleepBeforeItsFirstAnswer() {
        var cycle = SensorCycle(plan())
        _ = cycle.start(at: at(0))
        #expect(cycle.cancelled().send == [SDS011Protocol.sleep])
        var idle = SensorCycle(plan())
        #expect(idle.cancelled().send.isEmpty)
    }

    @Test func sleepBetweenOffLeavesTheSensorRunning() throws {
        var cycle = SensorCycle(plan(.sps30, sleepAfter: false))
        let (action, sent, _) = run(&cycle) { _ in 7 }
        _ = try #require(try action.outcome?.get())
        #expect(!sent.contains(SPS30Protocol.sleep) && sent.first == SPS30Protocol.wake)
    }

    @Test func flagsSayWhatToBeCarefulOf() {
        let damp = ParticulateValues(pm2_5: 12, pm10: 20, pm2_5CF1: 18, relativeHumidity: 80)
        let sample = SensorSample(
            model: .pms5003t, device: "/dev/x", serial: nil, readings: [damp], windowSeconds: 10, warmUpSeconds: 10,
            correction: .epaPMS, humidityLimit: 70)
        #expect(sample.flags == [.humidity, .warmUpCutShort])
        // 0.524 × 18 − 0.0862 × 80 + 5.75 = 8.286
        #expect(sample.correctedPM2_5 == 8.3)
        // The index is of the corrected value: 8.3 µg/m³ is Good; the raw 12 would be Moderate.
        #expect(sample.usAQI.map { AQICategory(aqi: $0) } == .good, "\(String(describing: sample.usAQI))")
        let off = SensorSample(
            model: .sds011, device: "/dev/x", serial: nil, readings: [ParticulateValues(pm2_5: 1200, pm10: 1500)],
            windowSeconds: 10, warmUpSeconds: 30, correction: .none, humidityLimit: 70)
        #expect(off.flags == [.outOfRange] && off.correctedPM2_5 == nil)
    }
}
