import Readings

/// The Nova SDS011's serial protocol (datasheet V1.3): 10-byte frames from the sensor,
/// 19-byte commands to it.
///
/// Contract: ``Decoder`` turns any byte stream into frames: a data frame `AA C0 … AB` is a
/// reading only when its checksum (the low byte of the sum of bytes 2…7) holds; a reply
/// `AA C5 cmd …` is a reply; anything else is skipped and reported as refused, and the
/// next `AA` is tried. A frame cut short waits for its rest. Commands address every
/// device (`FF FF`).
public enum SDS011Protocol {
    /// Bytes in a data frame.
    public static let frameLength = 10

    /// `AA B4 cmd d1…d12 FF FF ck AB`.
    public static func command(_ command: UInt8, _ data: [UInt8] = []) -> [UInt8] {
        var body = [command] + data
        body += [UInt8](repeating: 0, count: max(0, 13 - body.count))
        body += [0xFF, 0xFF]
        let sum = body.reduce(0) { $0 &+ $1 }
        return [0xAA, 0xB4] + body + [sum, 0xAB]
    }

    /// Report on request only (`02 01 01`), so that every reading answers a query.
    public static let queryMode = command(0x02, [0x01, 0x01])
    /// A frame every second.
    public static let activeMode = command(0x02, [0x01, 0x00])
    /// One frame, now.
    public static let query = command(0x04)
    /// Fan and laser off.
    public static let sleep = command(0x06, [0x01, 0x00])
    /// Fan and laser on.
    public static let work = command(0x06, [0x01, 0x01])
    /// Continuous work (no working period of its own: airloc duty-cycles it).
    public static let continuous = command(0x08, [0x01, 0x00])
    /// The firmware date.
    public static let firmware = command(0x07)

    /// Finds whole, checked frames in the bytes as they come.
    public struct Decoder: Sendable {
        private var buffer = FrameBuffer()

        /// A decoder holding nothing.
        public init() {}

        /// Bytes not yet part of a complete frame.
        public var pending: Int { buffer.bytes.count }

        /// The frames `bytes` complete (bad ones are refusals, never values).
        public mutating func feed(_ bytes: some Sequence<UInt8>) -> [SensorFrame] {
            buffer.decode(bytes, header: 0xAA) { buffer, pending, frames in
                guard pending.count >= 2 else { return false }
                guard pending[1] == 0xC0 || pending[1] == 0xC5 else {
                    buffer.refuseFirst(.garbage(count: 1), &frames)
                    return true
                }
                guard pending.count >= frameLength else { return false }
                let frame = Array(pending.prefix(frameLength))
                if frame[9] != 0xAB {
                    buffer.refuseFirst(.malformed, &frames)
                } else if frame[2...7].reduce(0, &+) != frame[8] {
                    buffer.refuseFirst(.checksum, &frames)
                } else {
                    buffer.bytes.removeFirst(frameLength)
                    frames.append(Self.frame(frame))
                }
                return true
            }
        }

        static func frame(_ bytes: [UInt8]) -> SensorFrame {
            let id =
                String(bytes[6], radix: 16, uppercase: true).leftPadded
                + String(
                    bytes[7], radix: 16, uppercase: true
                ).leftPadded
            guard bytes[1] == 0xC0 else { return .reply(command: bytes[2], data: Array(bytes[3...7])) }
            let pm25 = Double(Int(bytes[3]) << 8 | Int(bytes[2])) / 10
            let pm10 = Double(Int(bytes[5]) << 8 | Int(bytes[4])) / 10
            return .values(ParticulateValues(pm2_5: pm25, pm10: pm10), sensorID: id)
        }
    }
}

extension String {
    /// A byte's two hex digits ("0A").
    fileprivate var leftPadded: String { count == 1 ? "0" + self : self }
}
