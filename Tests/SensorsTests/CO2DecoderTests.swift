import Foundation
import Readings
import Testing

@testable import Sensors

/// The CO₂ sensors' frames against the reference (air-sensors.md: the datasheets, the
/// kernel's scd30_serial.c): the commands byte for byte, replies read as the sensor means
/// them, and what a serial line does to replies — noise before them, a flipped bit, a
/// reply cut in two, another device's address. None of those ever becomes a value.
@Suite struct CO2DecoderTests {
    static func isValue(_ frame: SensorFrame, _ read: (SensorFrame) -> ClimateValues?) -> Bool { read(frame) != nil }

    /// An MH-Z19 reply to a read: `FF 86 HH LL` and four more bytes, with its checksum.
    static func mhz19Reply(ppm: Int, rest: [UInt8] = [0x47, 0x00, 0x00, 0x00]) -> [UInt8] {
        let frame: [UInt8] = [0xFF, 0x86, UInt8(ppm >> 8), UInt8(ppm & 0xFF)] + rest
        return frame + [MHZ19Protocol.checksum(frame)]
    }

    @Test func mhz19CommandsAreTheDatasheets() {
        #expect(MHZ19Protocol.read == [0xFF, 0x01, 0x86, 0x00, 0x00, 0x00, 0x00, 0x00, 0x79])
        #expect(MHZ19Protocol.abc(true) == [0xFF, 0x01, 0x79, 0xA0, 0x00, 0x00, 0x00, 0x00, 0xE6])
        #expect(MHZ19Protocol.abc(false) == [0xFF, 0x01, 0x79, 0x00, 0x00, 0x00, 0x00, 0x00, 0x86])
    }

    @Test func anMHZ19ReplyReadsAsHighTimes256PlusLow() {
        var decoder = MHZ19Protocol.Decoder()
        let frames = decoder.feed(Self.mhz19Reply(ppm: 0x0265))
        #expect(frames.compactMap(MHZ19Protocol.values(of:)) == [ClimateValues(co2PPM: 613)])
        #expect(decoder.pending == 0)
    }

    @Test func anMHZ19ReplyWithAFlippedBitNoiseOrAnEchoIsNeverAValue() {
        var bad = Self.mhz19Reply(ppm: 800)
        bad[3] ^= 0x10
        var decoder = MHZ19Protocol.Decoder()
        var frames = decoder.feed(bad)
        #expect(frames.contains(.refused(.checksum)))
        #expect(frames.compactMap(MHZ19Protocol.values(of:)).isEmpty)
        // The command echoed back by a loop-back wire, then noise with FF in it, then a reply.
        frames = decoder.feed(MHZ19Protocol.read + [0x13, 0xFF, 0x37] + Self.mhz19Reply(ppm: 415))
        #expect(frames.compactMap(MHZ19Protocol.values(of:)) == [ClimateValues(co2PPM: 415)])
    }

    @Test func anMHZ19ReplyCutInTwoWaitsForItsRest() {
        var decoder = MHZ19Protocol.Decoder()
        let reply = Self.mhz19Reply(ppm: 1234)
        #expect(decoder.feed(reply.prefix(4)).isEmpty)
        #expect(decoder.pending == 4)
        #expect(decoder.feed(reply.dropFirst(4)).compactMap(MHZ19Protocol.values(of:)) == [ClimateValues(co2PPM: 1234)])
    }

    @Test func theModbusCRCIsTheReferences() {
        // The reference's frames, CRC low byte first.
        #expect(SenseAirS8Protocol.readCO2 == [0xFE, 0x04, 0x00, 0x03, 0x00, 0x01, 0xD5, 0xC5])
        #expect(SCD30Protocol.startContinuous() == [0x61, 0x06, 0x00, 0x36, 0x00, 0x00, 0x60, 0x64])
        #expect(SCD30Protocol.dataReady == [0x61, 0x03, 0x00, 0x27, 0x00, 0x01, 0x3D, 0xA1])
        #expect(SCD30Protocol.readMeasurement == [0x61, 0x03, 0x00, 0x28, 0x00, 0x06, 0x4C, 0x60])
        // CRC-16/MODBUS's check value ("123456789").
        #expect(ModbusRTU.crc(Array("123456789".utf8)) == 0x4B37)
    }

    /// A Modbus response from `address`: the bytes, then their CRC low byte first.
    static func response(_ bytes: [UInt8]) -> [UInt8] {
        let crc = ModbusRTU.crc(bytes)
        return bytes + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }

    @Test func anS8ResponseIsItsCO2AndAnExceptionOrAnotherAddressIsNot() {
        var decoder = SenseAirS8Protocol.decoder()
        let co2 = Self.response([0xFE, 0x04, 0x02, 0x01, 0xC2])
        #expect(decoder.feed(co2).compactMap(SenseAirS8Protocol.values(of:)) == [ClimateValues(co2PPM: 450)])
        let exception = Self.response([0xFE, 0x84, 0x02])
        #expect(decoder.feed(exception) == [.reply(command: 0x84, data: [0x02])])
        let elsewhere = Self.response([0x68, 0x04, 0x02, 0x01, 0xC2])
        let frames = decoder.feed(elsewhere)
        #expect(frames.compactMap(SenseAirS8Protocol.values(of:)).isEmpty && decoder.pending == 0)
        var bad = co2
        bad[4] ^= 0x01
        #expect(decoder.feed(bad).contains(.refused(.checksum)))
    }

    @Test func anS8StatusNamesItsFaults() {
        #expect(SenseAirS8Protocol.faults(status: 0).isEmpty)
        #expect(SenseAirS8Protocol.faults(status: 0x22) == ["offset regulation error", "out of range"])
    }

    /// Three big-endian IEEE floats, as the SCD30 sends a measurement.
    static func measurement(_ values: [Float]) -> [UInt8] {
        let data = values.flatMap { value -> [UInt8] in
            let bits = value.bitPattern
            return [UInt8(bits >> 24), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits & 0xFF)]
        }
        return response([0x61, 0x03, UInt8(data.count)] + data)
    }

    @Test func anSCD30MeasurementIsThreeFloatsMostSignificantByteFirst() throws {
        var decoder = SCD30Protocol.decoder()
        let frames = decoder.feed(Self.measurement([612.5, 22.75, 41.25]))
        let values = try #require(frames.compactMap(SCD30Protocol.values(of:)).first)
        #expect(values == ClimateValues(co2PPM: 612.5, temperatureC: 22.75, relativeHumidity: 41.25))
        #expect(SCD30Protocol.isReady(decoder.feed(Self.response([0x61, 0x03, 0x02, 0x00, 0x01]))[0]))
        #expect(!SCD30Protocol.isReady(decoder.feed(Self.response([0x61, 0x03, 0x02, 0x00, 0x00]))[0]))
        // The echo of the start command is a write reply, not values.
        let echo = decoder.feed(SCD30Protocol.startContinuous())
        #expect(echo == [.reply(command: 0x06, data: [0x00, 0x36, 0x00, 0x00])])
        #expect(echo.compactMap(SCD30Protocol.values(of:)).isEmpty)
    }

    @Test func anSCD30FloatThatIsNotANumberIsNoValue() throws {
        var decoder = SCD30Protocol.decoder()
        let values = try #require(
            decoder.feed(Self.measurement([.nan, 21, 40])).compactMap(SCD30Protocol.values(of:)).first)
        #expect(values.co2PPM == nil && values.temperatureC == 21)
        #expect(decoder.feed(Self.measurement([.nan, .infinity, .nan])).compactMap(SCD30Protocol.values(of:)).isEmpty)
    }

    @Test func modbusNoiseAndAResponseCutInTwoNeverHoldUpTheNext() {
        var decoder = SCD30Protocol.decoder()
        let good = Self.measurement([800, 20, 50])
        // 0x61 in the noise, then a claimed byte count of 255: refused, not waited for.
        var frames = decoder.feed([0x00, 0x61, 0x03, 0xFF, 0x61, 0x42] + good.prefix(7))
        #expect(frames.compactMap(SCD30Protocol.values(of:)).isEmpty)
        #expect(frames.contains(.refused(.malformed)))
        frames = decoder.feed(good.dropFirst(7))
        #expect(
            frames.compactMap(SCD30Protocol.values(of:)) == [
                ClimateValues(co2PPM: 800, temperatureC: 20, relativeHumidity: 50)
            ])
        #expect(decoder.pending == 0)
    }
}
