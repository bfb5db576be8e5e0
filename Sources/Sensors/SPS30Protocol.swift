import Foundation
import Readings

/// The Sensirion SPS30's UART protocol: SHDLC frames `7E adr cmd len data… ck 7E` to the
/// sensor and `7E adr cmd state len data… ck 7E` back, with byte stuffing.
///
/// Contract: the checksum is the bitwise NOT of the low byte of the sum of the bytes
/// between the markers (after unstuffing); 7E, 7D, 11 and 13 inside a frame travel as 7D
/// followed by 5E, 5D, 31, 33. A reply to "read values" with 40 data bytes is a reading
/// (ten big-endian IEEE 754 floats: mass PM1.0, 2.5, 4.0, 10, then counts and size);
/// every other reply is a reply, its state byte first (0 = ok). An empty read (len 0)
/// means no new values yet.
public enum SPS30Protocol {
    static let stuffed: [UInt8: UInt8] = [0x7E: 0x5E, 0x7D: 0x5D, 0x11: 0x31, 0x13: 0x33]

    /// An SHDLC frame of `command` with `data`, stuffed, with its checksum.
    public static func command(_ command: UInt8, _ data: [UInt8] = []) -> [UInt8] {
        let body: [UInt8] = [0x00, command, UInt8(data.count)] + data
        let check = ~body.reduce(0) { $0 &+ $1 }
        var out: [UInt8] = [0x7E]
        for byte in body + [check] {
            if let escaped = stuffed[byte] { out += [0x7D, escaped] } else { out.append(byte) }
        }
        return out + [0x7E]
    }

    /// A lone `FF` first: the interface wakes on it, and the wake command that follows is
    /// the one that counts.
    public static let wake: [UInt8] = [0xFF] + command(0x11)
    /// Start measuring, floats out.
    public static let start = command(0x00, [0x01, 0x03])
    /// Stop measuring.
    public static let stop = command(0x01)
    /// Read the values.
    public static let read = command(0x03)
    /// Sleep.
    public static let sleep = command(0x10)
    /// Ask the serial number.
    public static let serialNumber = command(0xD0, [0x03])

    /// Finds whole, checked frames in the bytes as they come.
    public struct Decoder: Sendable {
        private var buffer = FrameBuffer()

        /// A decoder holding nothing.
        public init() {}

        /// Bytes held for a frame not complete yet.
        public var pending: Int { buffer.bytes.count }

        /// The frames `bytes` complete (bad ones are refusals, never values).
        public mutating func feed(_ bytes: some Sequence<UInt8>) -> [SensorFrame] {
            buffer.decode(bytes, header: 0x7E) { buffer, pending, frames in
                guard let end = pending.dropFirst().firstIndex(of: 0x7E) else {
                    // A frame is at most 2 × 260 bytes stuffed: longer is noise, not a frame.
                    guard pending.count > 600 else { return false }
                    buffer.refuseFirst(.malformed, &frames)
                    return true
                }
                if end == 1 {
                    // Two markers in a row: the second starts the frame.
                    buffer.bytes.removeFirst()
                } else {
                    buffer.bytes.removeFirst(end + 1)
                    frames.append(Self.frame(Array(pending[1..<end])))
                }
                return true
            }
        }

        static func frame(_ stuffedBody: [UInt8]) -> SensorFrame {
            var body: [UInt8] = []
            var escape = false
            for byte in stuffedBody {
                if escape {
                    guard let plain = SPS30Protocol.stuffed.first(where: { $0.value == byte })?.key else {
                        return .refused(.malformed)
                    }
                    body.append(plain)
                    escape = false
                } else if byte == 0x7D {
                    escape = true
                } else {
                    body.append(byte)
                }
            }
            guard !escape, body.count >= 5, body.count == 5 + Int(body[3]) else { return .refused(.malformed) }
            guard ~body.dropLast().reduce(0, { $0 &+ $1 }) == body.last! else { return .refused(.checksum) }
            let command = body[1]
            let state = body[2]
            let data = Array(body[4..<(body.count - 1)])
            if command == 0x03 && state == 0 && data.count == 40 {
                func float(_ index: Int) -> Double {
                    let bits = data[(index * 4)..<(index * 4 + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                    return Double(Float(bitPattern: bits))
                }
                let values = (0..<4).map(float)
                // The SPS30 measures 0–1,000 µg/m³; a float far beyond (1e38) is a damaged frame
                // whose checksum held, never air.
                guard values.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= ParticulateValues.possible }) else {
                    return .refused(.malformed)
                }
                return .values(
                    ParticulateValues(pm1_0: values[0], pm2_5: values[1], pm4_0: values[2], pm10: values[3]),
                    sensorID: nil)
            }
            return .reply(command: command, data: [state] + data)
        }
    }
}
