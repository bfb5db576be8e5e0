import Foundation
import Readings
import Testing

@testable import Sensors

/// The CO₂ sensors' driver on the caller's clock: each request answered by a simulated
/// sensor in its real frames, through the cycle's own decoder; noise, bad checksums and cut
/// replies are never values, and the request they spoiled is asked again.
@Suite struct ClimateCycleTests {
    let t0 = ContinuousClock.now
    func at(_ seconds: Double) -> ContinuousClock.Instant { t0 + .milliseconds(Int(seconds * 1000)) }

    static func modbus(_ address: UInt8, _ function: UInt8, _ data: [UInt8]) -> [UInt8] {
        let frame = [address, function, UInt8(data.count)] + data
        let crc = ModbusRTU.crc(frame)
        return frame + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }

    static func mhz19(ppm: Int) -> [UInt8] {
        let frame: [UInt8] = [0xFF, 0x86, UInt8(ppm >> 8), UInt8(ppm & 0xFF), 0x47, 0, 0, 0]
        return frame + [MHZ19Protocol.checksum(frame + [0])]
    }

    static func floats(_ values: [Float]) -> [UInt8] {
        values.flatMap { value -> [UInt8] in
            let bits = value.bitPattern
            return [UInt8(bits >> 24), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits & 0xFF)]
        }
    }

    /// What a sensor of `model` answers to `request` at `second` (nil: nothing).
    static func answer(_ model: ClimateModel, _ request: [UInt8], ppm: Int, status: UInt16 = 0) -> [UInt8]? {
        switch (model, request) {
        case (.mhZ19, MHZ19Protocol.read): return mhz19(ppm: ppm)
        case (.senseairS8, SenseAirS8Protocol.readCO2): return modbus(0xFE, 0x04, [UInt8(ppm >> 8), UInt8(ppm & 0xFF)])
        case (.senseairS8, SenseAirS8Protocol.readStatus):
            return modbus(0xFE, 0x04, [UInt8(status >> 8), UInt8(status & 0xFF)])
        case (.scd30, SCD30Protocol.startContinuous()): return request
        case (.scd30, SCD30Protocol.dataReady): return modbus(0x61, 0x03, [0, 1])
        case (.scd30, SCD30Protocol.readMeasurement): return modbus(0x61, 0x03, floats([Float(ppm), 21.5, 40]))
        default: return nil
        }
    }

    /// Runs the cycle against a sensor answering each request (spoiled by `spoil` when it
    /// returns other bytes), one second a poll.
    func run(
        _ plan: ClimateCycle.Plan, ppm: @escaping (Double) -> Int = { _ in 800 }, status: UInt16 = 0,
        spoil: (Double, [UInt8]) -> [UInt8] = { $1 }, limit: Double = 400
    ) -> (CycleAction<ClimateSample>, sent: [[UInt8]], at: Double) {
        var cycle = ClimateCycle(plan)
        var decoder = cycle.decoder()
        var action = cycle.start(at: at(0))
        var sent: [[UInt8]] = []
        var second = 0.0
        while action.outcome == nil && second < limit {
            // Answer what was sent (answers to answers too: a re-asked request), then tick.
            var queue = action.send
            sent += queue
            while !queue.isEmpty, action.outcome == nil {
                let request = queue.removeFirst()
                guard let reply = Self.answer(plan.model, request, ppm: ppm(second), status: status) else { continue }
                for frame in decoder.feed(spoil(second, reply)) {
                    action = cycle.received(frame, at: at(second + 0.1))
                    queue += action.send
                    sent += action.send
                }
            }
            second += 1
            action = cycle.tick(at: at(second))
        }
        return (action, sent, second)
    }

    @Test func theMHZ19IsPreheatedThenAveragedAndItsBaselineSetAtTheStart() throws {
        let plan = ClimateCycle.Plan(
            model: .mhZ19, device: "/dev/co2", warmUp: .seconds(180), sample: .seconds(10), abc: false)
        // It reads a fixed 500 while preheating, then 800 and 900 alternately.
        let (action, sent, second) = run(plan, ppm: { $0 < 180 ? 500 : (Int($0) % 2 == 0 ? 800 : 900) })
        let sample = try #require(try action.outcome?.get())
        #expect(sample.mean.co2PPM == 850 && sample.samples == 10, "\(sample)")
        #expect(sample.mean.temperatureC == nil, "the MH-Z19's temperature byte is not a value airloc reports")
        #expect(second == 190, "180 s preheating, then 10 s")
        #expect(sent.first == MHZ19Protocol.abc(false) && sent[1] == MHZ19Protocol.read)
    }

    @Test func theS8sFaultsAreSaidAndItsCO2StillRead() throws {
        let plan = ClimateCycle.Plan(model: .senseairS8, device: "/dev/s8", sample: .seconds(10))
        let (action, sent, _) = run(plan, ppm: { _ in 612 }, status: 0x20)
        let sample = try #require(try action.outcome?.get())
        #expect(sample.mean.co2PPM == 612 && sample.faults == ["out of range"], "\(sample)")
        #expect(sent.first == SenseAirS8Protocol.readStatus && sent.contains(SenseAirS8Protocol.readCO2))
    }

    @Test func theSCD30IsStartedAndReadWhenReady() throws {
        let plan = ClimateCycle.Plan(model: .scd30, device: "/dev/scd30", sample: .seconds(5))
        let (action, sent, _) = run(plan, ppm: { _ in 1_234 })
        let sample = try #require(try action.outcome?.get())
        #expect(sample.mean.co2PPM == 1_234 && sample.mean.temperatureC == 21.5 && sample.mean.relativeHumidity == 40)
        #expect(sent.first == SCD30Protocol.startContinuous() && sent.contains(SCD30Protocol.readMeasurement))
    }

    @Test(arguments: [ClimateModel.mhZ19, .senseairS8, .scd30])
    func aSpoiledReplyIsNeverAValueAndIsAskedAgain(model: ClimateModel) throws {
        let plan = ClimateCycle.Plan(model: model, device: "/dev/x", sample: .seconds(20))
        // Every other second the reply is spoiled: a flipped bit, a cut reply, noise.
        let (action, sent, _) = run(plan, ppm: { _ in 700 }) { second, reply in
            switch Int(second) % 6 {
            case 1: return reply.enumerated().map { $0.offset == 3 ? $0.element ^ 0x10 : $0.element }
            case 3: return Array(reply.prefix(reply.count - 2))
            case 5: return [0x13, 0x37, 0xAA] + reply.dropFirst(2)
            default: return reply
            }
        }
        let sample = try #require(try action.outcome?.get())
        #expect(sample.mean.co2PPM == 700, "no spoiled reply became a value: \(sample)")
        let requests = sent.filter { $0 != SCD30Protocol.startContinuous() }
        #expect(requests.count > 20, "spoiled requests were asked again: \(requests.count) sent")
    }

    /// Doctor's short look (no warm-up, a second's window) at an MH-Z19 whose UART drops
    /// bytes: it answers every request, in turn with a bad checksum, a good frame, a frame
    /// cut short, and noise before a good frame. A good frame in hand is a reading, and the
    /// sensor is asked on while it answers: never "stopped sending" (issue 70, finding 7).
    @Test func aSensorAnsweringWithDamagedFramesIsAskedUntilAGoodOne() throws {
        let plan = ClimateCycle.Plan(model: .mhZ19, device: "/dev/co2", warmUp: .zero, sample: .seconds(1))
        for offset in 0..<4 {
            var replies = offset
            let (action, _, second) = run(plan, ppm: { _ in 612 }) { _, reply in
                defer { replies += 1 }
                switch replies % 4 {
                case 0: return reply.enumerated().map { $0.offset == 8 ? $0.element ^ 0x01 : $0.element }
                case 1: return reply
                case 2: return Array(reply.prefix(5))
                default: return [0x00, 0x13, 0x37] + reply
                }
            }
            let sample = try #require(try action.outcome?.get(), "starting at damage \(offset)")
            #expect(sample.mean.co2PPM == 612 && second <= 4, "\(sample) after \(second) s")
        }
        // Only damage, for longer than the timeout after the window: the frames were bad, not absent.
        let damaged = run(
            ClimateCycle.Plan(
                model: .mhZ19, device: "/dev/co2", warmUp: .zero, sample: .seconds(1), timeout: .seconds(5)),
            spoil: { _, reply in Array(reply.prefix(5)) })
        #expect(
            damaged.0.outcome == .failure(.notASensor("/dev/co2"))
                || damaged.0.outcome == .failure(.invalidFrames("/dev/co2")))
    }

    @Test func aSilentOrNonSensorPortFailsAtTheTimeout() {
        let silent = run(
            ClimateCycle.Plan(model: .mhZ19, device: "/dev/none", timeout: .seconds(5)), spoil: { _, _ in [] })
        #expect(silent.0.outcome == .failure(.noAnswer("/dev/none")) && silent.at == 5)
        let noise = run(
            ClimateCycle.Plan(model: .senseairS8, device: "/dev/gps", timeout: .seconds(5)),
            spoil: { _, _ in Array("$GPGGA,123519,4807.038,N".utf8) + [0xFE, 0x04, 0x02, 0x01, 0x02, 0x00, 0x00] })
        #expect(noise.0.outcome == .failure(.notASensor("/dev/gps")), "\(String(describing: noise.0.outcome))")
    }
}
