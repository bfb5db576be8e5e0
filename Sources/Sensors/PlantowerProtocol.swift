import Readings

/// The Plantower PMS family's serial protocol: frames `42 4D len… values… ck`, commands
/// `42 4D cmd dH dL ckH ckL`.
///
/// Contract: the checksum (the 16-bit sum of every byte before it) must hold, and the
/// length must be one the family uses: 28 (PMS5003, 5003T, A003, 7003, 1003: 13 values),
/// 20 (PMS3003: 9 values), 36 (PMS5003ST, formaldehyde ignored), or 4 (a reply to a
/// command). The PMS5003T's values 10 and 11 are temperature and humidity ×10. Anything
/// else is refused and the next `42 4D` is tried.
public enum PlantowerProtocol {
    /// A 7-byte command frame with its checksum.
    public static func command(_ command: UInt8, _ high: UInt8 = 0, _ low: UInt8 = 0) -> [UInt8] {
        let bytes: [UInt8] = [0x42, 0x4D, command, high, low]
        let sum = bytes.reduce(0) { $0 + Int($1) }
        return bytes + [UInt8(sum >> 8 & 0xFF), UInt8(sum & 0xFF)]
    }

    /// Passive mode: a frame only when asked (`E2`).
    public static let passiveMode = command(0xE1, 0, 0)
    /// Frames every second (active mode).
    public static let activeMode = command(0xE1, 0, 1)
    /// One frame, now (passive mode).
    public static let read = command(0xE2)
    /// Fan and laser off.
    public static let sleep = command(0xE4, 0, 0)
    /// Fan and laser on.
    public static let wake = command(0xE4, 0, 1)

    static let lengths: Set<Int> = [4, 20, 28, 36]

    /// Finds whole, checked frames in the bytes as they come.
    public struct Decoder: Sendable {
        private var buffer = FrameBuffer()
        let humidity: Bool

        /// `humidity`: the PMS5003T, whose values 10 and 11 are temperature and humidity.
        public init(humidity: Bool) { self.humidity = humidity }

        /// Bytes held for a frame not complete yet.
        public var pending: Int { buffer.bytes.count }

        /// The frames `bytes` complete (bad ones are refusals, never values).
        public mutating func feed(_ bytes: some Sequence<UInt8>) -> [SensorFrame] {
            let humidity = self.humidity
            return buffer.decode(bytes, header: 0x42) { buffer, pending, frames in
                guard pending.count < 2 || pending[1] == 0x4D else {
                    buffer.refuseFirst(.garbage(count: 1), &frames)
                    return true
                }
                guard pending.count >= 4 else { return false }
                let length = Int(pending[2]) << 8 | Int(pending[3])
                guard PlantowerProtocol.lengths.contains(length) else {
                    buffer.refuseFirst(.malformed, &frames)
                    return true
                }
                let total = 4 + length
                guard pending.count >= total else { return false }
                let frame = Array(pending.prefix(total))
                let sum = frame.prefix(total - 2).reduce(0) { $0 + Int($1) } & 0xFFFF
                if sum != Int(frame[total - 2]) << 8 | Int(frame[total - 1]) {
                    buffer.refuseFirst(.checksum, &frames)
                } else {
                    buffer.bytes.removeFirst(total)
                    frames.append(Self.decode(frame, length: length, humidity: humidity))
                }
                return true
            }
        }

        private static func decode(_ frame: [UInt8], length: Int, humidity: Bool) -> SensorFrame {
            guard length != 4 else { return .reply(command: frame[4], data: [frame[5]]) }
            func value(_ index: Int) -> Double { Double(Int(frame[4 + 2 * index]) << 8 | Int(frame[5 + 2 * index])) }
            var values = ParticulateValues(pm1_0: value(3), pm2_5: value(4), pm10: value(5), pm2_5CF1: value(1))
            if humidity && length >= 28 {
                // Values 10 and 11 of 13 (counting from 1), in place of the 2.5 and 5.0 µm counts.
                values.temperatureC = Double(Int16(bitPattern: UInt16(value(9)))) / 10
                values.relativeHumidity = value(10) / 10
            }
            return .values(values, sensorID: nil)
        }
    }
}
