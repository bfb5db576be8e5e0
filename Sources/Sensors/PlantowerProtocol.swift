/// The Plantower PMS family's serial protocol: frames `42 4D len… values… ck`, commands
/// `42 4D cmd dH dL ckH ckL`.
///
/// Contract: the checksum (the 16-bit sum of every byte before it) must hold, and the
/// length must be one the family uses: 28 (PMS5003, 5003T, A003, 7003, 1003: 13 values),
/// 20 (PMS3003: 9 values), 36 (PMS5003ST, formaldehyde ignored), or 4 (a reply to a
/// command). The PMS5003T's values 10 and 11 are temperature and humidity ×10. Anything
/// else is refused and the next `42 4D` is tried.
public enum PlantowerProtocol {
    public static func command(_ command: UInt8, _ high: UInt8 = 0, _ low: UInt8 = 0) -> [UInt8] {
        let bytes: [UInt8] = [0x42, 0x4D, command, high, low]
        let sum = bytes.reduce(0) { $0 + Int($1) }
        return bytes + [UInt8(sum >> 8 & 0xFF), UInt8(sum & 0xFF)]
    }

    /// Passive mode: a frame only when asked (`E2`).
    public static let passiveMode = command(0xE1, 0, 0)
    public static let activeMode = command(0xE1, 0, 1)
    public static let read = command(0xE2)
    public static let sleep = command(0xE4, 0, 0)
    public static let wake = command(0xE4, 0, 1)

    static let lengths: Set<Int> = [4, 20, 28, 36]

    public struct Decoder: Sendable {
        private var buffer: [UInt8] = []
        let humidity: Bool

        /// `humidity`: the PMS5003T, whose values 10 and 11 are temperature and humidity.
        public init(humidity: Bool) { self.humidity = humidity }

        public var pending: Int { buffer.count }

        public mutating func feed(_ bytes: some Sequence<UInt8>) -> [SensorFrame] {
            buffer.append(contentsOf: bytes)
            var frames: [SensorFrame] = []
            while !buffer.isEmpty {
                guard let start = buffer.indices.first(where: { buffer[$0] == 0x42 }) else {
                    frames.append(.refused(.garbage(count: buffer.count)))
                    buffer.removeAll()
                    break
                }
                if start > 0 {
                    frames.append(.refused(.garbage(count: start)))
                    buffer.removeFirst(start)
                }
                guard buffer.count >= 4 else {
                    if buffer.count >= 2 && buffer[1] != 0x4D { skip(&frames, .garbage(count: 1)) }
                    break
                }
                guard buffer[1] == 0x4D else {
                    skip(&frames, .garbage(count: 1))
                    continue
                }
                let length = Int(buffer[2]) << 8 | Int(buffer[3])
                guard Self.lengthIsKnown(length) else {
                    skip(&frames, .malformed)
                    continue
                }
                let total = 4 + length
                guard buffer.count >= total else { break }
                let frame = Array(buffer.prefix(total))
                let sum = frame.prefix(total - 2).reduce(0) { $0 + Int($1) } & 0xFFFF
                guard sum == Int(frame[total - 2]) << 8 | Int(frame[total - 1]) else {
                    skip(&frames, .checksum)
                    continue
                }
                buffer.removeFirst(total)
                frames.append(decode(frame, length: length))
            }
            return frames
        }

        static func lengthIsKnown(_ length: Int) -> Bool { PlantowerProtocol.lengths.contains(length) }

        private mutating func skip(_ frames: inout [SensorFrame], _ problem: FrameProblem) {
            frames.append(.refused(problem))
            buffer.removeFirst()
        }

        private func decode(_ frame: [UInt8], length: Int) -> SensorFrame {
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
