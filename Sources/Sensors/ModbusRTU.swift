/// Modbus RTU as the SenseAir S8 and the Sensirion SCD30 speak it on a serial line: a
/// request (address, function, two 16-bit words, CRC) and its response, each ending with
/// the CRC-16/MODBUS of the bytes before it, low byte first.
///
/// Contract: ``Decoder`` takes only responses from its own `address`. A response is a
/// frame only when its length is the function's (read registers: 5 + its byte count;
/// write a register: 8; an exception: 5) and its CRC holds; anything else is refused and
/// skipped, and the search goes on from the next address byte. A response cut short waits
/// for its rest. Frames come out as ``SensorFrame/reply(command:data:)``: the function
/// (with 0x80 set for an exception) and the bytes between it and the CRC (the register
/// bytes without their count; an exception's code).
public enum ModbusRTU {
    /// Read holding registers.
    public static let readHolding: UInt8 = 0x03
    /// Read input registers.
    public static let readInput: UInt8 = 0x04
    /// Write one register.
    public static let writeRegister: UInt8 = 0x06

    /// CRC-16/MODBUS (reflected polynomial 0xA001, initial 0xFFFF).
    public static func crc(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc: UInt16 = 0xFFFF
        for byte in bytes {
            crc ^= UInt16(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        }
        return crc
    }

    /// `address function first count/value CRC`: a read of `count` registers from `first`,
    /// or a write of `value` to `first`.
    public static func request(address: UInt8, function: UInt8, _ first: UInt16, _ word: UInt16) -> [UInt8] {
        let body = [address, function, UInt8(first >> 8), UInt8(first & 0xFF), UInt8(word >> 8), UInt8(word & 0xFF)]
        let check = crc(body)
        return body + [UInt8(check & 0xFF), UInt8(check >> 8)]
    }

    /// The 16-bit registers of a read response's data (most significant byte first).
    public static func registers(_ data: [UInt8]) -> [UInt16] {
        stride(from: 0, to: data.count - 1, by: 2).map { UInt16(data[$0]) << 8 | UInt16(data[$0 + 1]) }
    }

    /// The most register bytes a response is taken with (32 registers).
    public static let maxDataBytes: UInt8 = 64

    /// Finds whole, checked responses from one address in the bytes as they come.
    public struct Decoder: Sendable {
        /// The device's address: responses from any other are not its.
        public let address: UInt8
        private var buffer = FrameBuffer()

        /// A decoder for the device at `address`, holding nothing.
        public init(address: UInt8) { self.address = address }

        /// Bytes not yet part of a complete frame.
        public var pending: Int { buffer.bytes.count }

        /// The frames `bytes` complete (bad ones are refusals, never values).
        public mutating func feed(_ bytes: some Sequence<UInt8>) -> [SensorFrame] {
            buffer.decode(bytes, header: address) { buffer, pending, frames in
                guard pending.count >= 3 else { return false }
                let function = pending[1]
                let length: Int
                switch function {
                case readHolding, readInput:
                    // An odd count, or more than these sensors ever send, is noise: waiting
                    // for its "rest" would hold up the frames behind it.
                    guard pending[2] % 2 == 0, pending[2] <= maxDataBytes else {
                        buffer.refuseFirst(.malformed, &frames)
                        return true
                    }
                    length = 5 + Int(pending[2])
                case writeRegister: length = 8
                case _ where function & 0x80 != 0 && [readHolding, readInput, writeRegister].contains(function & 0x7F):
                    length = 5
                default:
                    buffer.refuseFirst(.malformed, &frames)
                    return true
                }
                guard pending.count >= length else { return false }
                let frame = pending.prefix(length)
                let check = crc(frame.dropLast(2))
                guard frame[length - 2] == UInt8(check & 0xFF), frame[length - 1] == UInt8(check >> 8) else {
                    buffer.refuseFirst(.checksum, &frames)
                    return true
                }
                buffer.bytes.removeFirst(length)
                let isRead = function == readHolding || function == readInput
                frames.append(.reply(command: function, data: Array(frame[(isRead ? 3 : 2)..<(length - 2)])))
                return true
            }
        }
    }
}
