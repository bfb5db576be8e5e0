import Readings
import TestSupport
import Testing

@testable import Sensors

/// The decoders against the frames in the reference (air-sensors.md), among them a frame
/// captured from a real SDS011, and against what a serial line does to frames: garbage
/// before them, bad checksums, frames cut in two.
@Suite struct SensorDecoderTests {
    /// The reference's capture: PM2.5 123.6, PM10 261.8, id A160.
    let capturedSDS011: [UInt8] = [0xAA, 0xC0, 0xD4, 0x04, 0x3A, 0x0A, 0xA1, 0x60, 0x1D, 0xAB]

    @Test func aCapturedSDS011FrameReadsAsTheReferenceSays() {
        var decoder = SDS011Protocol.Decoder()
        #expect(
            decoder.feed(capturedSDS011) == [.values(ParticulateValues(pm2_5: 123.6, pm10: 261.8), sensorID: "A160")])
    }

    @Test func garbageBeforeAFrameIsSkippedAndTheFrameStillCounts() {
        var decoder = SDS011Protocol.Decoder()
        let frames = decoder.feed([0x00, 0xAA, 0x13, 0xAB] + capturedSDS011)
        #expect(frames.filter { if case .values = $0 { return true } else { return false } }.count == 1)
        #expect(frames.contains(.refused(.garbage(count: 1))))
        #expect(decoder.pending == 0)
    }

    @Test func aWrongChecksumIsNeverAValue() {
        var bad = capturedSDS011
        bad[3] ^= 0x01
        var decoder = SDS011Protocol.Decoder()
        let frames = decoder.feed(bad)
        #expect(frames.first == .refused(.checksum))
        #expect(!frames.contains { if case .values = $0 { return true } else { return false } })
    }

    @Test func aFrameCutInTwoWaitsForItsRest() {
        var decoder = SDS011Protocol.Decoder()
        #expect(decoder.feed(capturedSDS011.prefix(6)).isEmpty)
        #expect(decoder.pending == 6)
        #expect(decoder.feed(capturedSDS011.dropFirst(6)).count == 1)
    }

    @Test func sds011CommandsCarryTheirChecksum() {
        // Sleep: AA B4 06 01 00, twelve data bytes, FF FF, checksum = low byte of 06+01+FF+FF.
        let sleep = SDS011Protocol.sleep
        #expect(sleep.count == 19 && sleep.prefix(5) == [0xAA, 0xB4, 0x06, 0x01, 0x00])
        #expect(sleep[15...16] == [0xFF, 0xFF] && sleep[17] == 0x05 && sleep[18] == 0xAB)
        var decoder = SDS011Protocol.Decoder()
        // A reply: AA C5 06 01 00 00 A1 60 ck AB.
        let body: [UInt8] = [0x06, 0x01, 0x00, 0x00, 0xA1, 0x60]
        #expect(
            decoder.feed([0xAA, 0xC5] + body + [body.reduce(0, &+), 0xAB])
                == [.reply(command: 0x06, data: [0x01, 0x00, 0x00, 0xA1, 0x60])])
    }

    /// A PMS5003T frame: 13 values, temperature and humidity in values 10 and 11.
    static func plantowerFrame(_ values: [Int]) -> [UInt8] {
        var frame: [UInt8] = [0x42, 0x4D, 0x00, 0x1C]
        for value in values { frame += [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        let sum = frame.reduce(0) { $0 + Int($1) }
        return frame + [UInt8(sum >> 8), UInt8(sum & 0xFF)]
    }

    @Test func plantowerReportsTheATMValuesAndCF1AndTheTVariantsClimate() {
        let frame = Self.plantowerFrame([5, 18, 20, 6, 12, 21, 900, 300, 80, 215, 452, 1, 0])
        var plain = PlantowerProtocol.Decoder(humidity: false)
        #expect(
            plain.feed(frame) == [
                .values(ParticulateValues(pm1_0: 6, pm2_5: 12, pm10: 21, pm2_5CF1: 18), sensorID: nil)
            ])
        var t = PlantowerProtocol.Decoder(humidity: true)
        guard case .values(let values, _)? = t.feed(frame).first else { return #expect(Bool(false)) }
        #expect(values.temperatureC == 21.5 && values.relativeHumidity == 45.2)
    }

    @Test func plantowerRefusesABadChecksumAndAnUnknownLengthThenResynchronises() {
        var frame = Self.plantowerFrame([5, 18, 20, 6, 12, 21, 900, 300, 80, 20, 5, 1, 0])
        frame[10] ^= 0x40
        var decoder = PlantowerProtocol.Decoder(humidity: false)
        let good = Self.plantowerFrame([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0])
        let frames = decoder.feed([0x42, 0x4D, 0x07, 0xFF] + frame + good)
        #expect(frames.contains(.refused(.malformed)) && frames.contains(.refused(.checksum)))
        #expect(frames.last == .values(ParticulateValues(pm1_0: 4, pm2_5: 5, pm10: 6, pm2_5CF1: 2), sensorID: nil))
    }

    /// The PMS3003's shorter frame (length 20: nine values) reads like the others.
    @Test func thePMS3003sShorterFrameReads() {
        var frame: [UInt8] = [0x42, 0x4D, 0x00, 0x14]
        for value in [7, 15, 22, 8, 14, 23, 0, 0, 0] { frame += [0, UInt8(value)] }
        let sum = frame.reduce(0) { $0 + Int($1) }
        frame += [UInt8(sum >> 8), UInt8(sum & 0xFF)]
        var decoder = PlantowerProtocol.Decoder(humidity: false)
        #expect(
            decoder.feed(frame) == [
                .values(ParticulateValues(pm1_0: 8, pm2_5: 14, pm10: 23, pm2_5CF1: 15), sensorID: nil)
            ])
    }

    @Test func plantowerCommandsAreSevenBytesWithTheirSum() {
        #expect(PlantowerProtocol.sleep == [0x42, 0x4D, 0xE4, 0x00, 0x00, 0x01, 0x73])
        #expect(PlantowerProtocol.read == [0x42, 0x4D, 0xE2, 0x00, 0x00, 0x01, 0x71])
    }

    /// An SPS30 reply, stuffed as the wire carries it.
    static func sps30Reply(_ command: UInt8, _ data: [UInt8], state: UInt8 = 0) -> [UInt8] {
        let body: [UInt8] = [0x00, command, state, UInt8(data.count)] + data
        var out: [UInt8] = [0x7E]
        for byte in body + [~body.reduce(0, &+)] {
            if let escaped = SPS30Protocol.stuffed[byte] { out += [0x7D, escaped] } else { out.append(byte) }
        }
        return out + [0x7E]
    }

    @Test func sps30ReadsFloatsThroughByteStuffing() {
        // 17.0 is 41 88 00 00; 0x11 and 0x13 inside values must be stuffed and unstuffed.
        let floats: [Float] = [Float(bitPattern: 0x4111_1313), 17, 18.5, 20, 1, 2, 3, 4, 5, 0.6]
        let data = floats.flatMap { value in withUnsafeBytes(of: value.bitPattern.bigEndian) { Array($0) } }
        let wire = Self.sps30Reply(0x03, data)
        #expect(wire.contains(0x7D))
        var decoder = SPS30Protocol.Decoder()
        guard case .values(let values, _)? = decoder.feed(wire).first else { return #expect(Bool(false)) }
        #expect(values.pm2_5 == 17 && values.pm4_0 == 18.5 && values.pm10 == 20)
        #expect(values.pm1_0 == Double(Float(bitPattern: 0x4111_1313)))
    }

    @Test func sps30CommandsAreStuffedAndChecked() {
        #expect(SPS30Protocol.start == [0x7E, 0x00, 0x00, 0x02, 0x01, 0x03, 0xF9, 0x7E])
        // "Read values": 00 03 00, checksum ~03 = FC.
        #expect(SPS30Protocol.read == [0x7E, 0x00, 0x03, 0x00, 0xFC, 0x7E])
        var decoder = SPS30Protocol.Decoder()
        var bad = Self.sps30Reply(0x00, [])
        bad[2] ^= 0x01  // the command byte: the checksum no longer holds
        #expect(decoder.feed(bad) == [.refused(.checksum)])
        #expect(
            decoder.feed(Self.sps30Reply(0xD0, Array("SN42".utf8) + [0])) == [
                .reply(command: 0xD0, data: [0] + Array("SN42".utf8) + [0])
            ])
    }

    /// Random bytes into every decoder: no trap, and every value comes from bytes that
    /// are a frame by the protocol's own rule (checked here independently of the decoder).
    @Test(arguments: SensorModel.allCases)
    func randomBytesNeverTrapAndNeverMakeAValueFromGarbage(model: SensorModel) {
        var generator = SplitMix(seed: UInt64(model.rawValue.utf8.reduce(0) { $0 &* 31 &+ UInt64($1) }))
        var decoder = SensorDecoder(model)
        var values = 0
        for _ in 0..<2000 {
            let count = Int(generator.next() % 64)
            // Header bytes often, so the decoders are made to judge many near-frames.
            let bytes = (0..<count).map { _ -> UInt8 in
                let roll = generator.next() % 8
                switch roll {
                case 0: return [0xAA, 0x42, 0x7E][Int(generator.next() % 3)]
                case 1: return [0xC0, 0x4D, 0x7D, 0xAB][Int(generator.next() % 4)]
                default: return UInt8(truncatingIfNeeded: generator.next())
                }
            }
            for frame in decoder.feed(bytes) { if case .values = frame { values += 1 } }
        }
        // A random frame passes an 8-bit checksum about once in 256 tries at a header;
        // what matters is that the decoders never trap and resynchronise throughout.
        #expect(values < 50, "\(values) values from random bytes")
    }
}
