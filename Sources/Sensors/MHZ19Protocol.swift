import Readings

/// The Winsen MH-Z19B/C's serial protocol (datasheet; 9600 8N1): 9-byte commands and
/// replies, `FF` first, a checksum last.
///
/// Contract: ``Decoder`` turns any byte stream into frames. A 9-byte frame `FF cmd …` is a
/// reply only when its checksum (0xFF minus the low byte of the sum of bytes 1…7, plus 1)
/// holds; anything else is refused and skipped, and the next `FF` is tried. A frame cut
/// short waits for its rest. Only a checked reply to ``read`` becomes a CO₂ value
/// (``values(of:)``). The sensor does not answer ``abc(_:)``.
public enum MHZ19Protocol {
    /// Bytes in a command or a reply.
    public static let frameLength = 9
    /// The command that reads the gas concentration.
    public static let readCommand: UInt8 = 0x86

    /// The checksum of a 9-byte frame (its byte 8).
    public static func checksum(_ frame: some Collection<UInt8>) -> UInt8 {
        let sum = frame.dropFirst().prefix(7).reduce(UInt8(0), &+)
        return (0xFF &- sum) &+ 1
    }

    /// `FF 01 cmd d1…d5 ck`.
    public static func command(_ command: UInt8, _ data: [UInt8] = []) -> [UInt8] {
        var frame: [UInt8] = [0xFF, 0x01, command] + data.prefix(5)
        frame += [UInt8](repeating: 0, count: 8 - frame.count)
        return frame + [checksum(frame)]
    }

    /// Read the CO₂ concentration: `FF 01 86 00 00 00 00 00 79`.
    public static let read = command(readCommand)

    /// Automatic baseline calibration on (`A0`) or off: the sensor recalibrates its zero to
    /// the lowest reading of each 24 hours, which is right outdoors and in rooms aired
    /// daily, and wrong where the air never reaches 400 ppm.
    public static func abc(_ on: Bool) -> [UInt8] { command(0x79, [on ? 0xA0 : 0x00]) }

    /// The CO₂ of a checked reply to ``read`` (`FF 86 HH LL …`: HH·256 + LL ppm); nil for
    /// any other frame.
    public static func values(of frame: SensorFrame) -> ClimateValues? {
        guard case .reply(readCommand, let data) = frame, data.count >= 2 else { return nil }
        return ClimateValues(co2PPM: Double(Int(data[0]) << 8 | Int(data[1])))
    }

    /// Finds whole, checked replies in the bytes as they come.
    public struct Decoder: Sendable {
        private var buffer = FrameBuffer()

        /// A decoder holding nothing.
        public init() {}

        /// Bytes not yet part of a complete frame.
        public var pending: Int { buffer.bytes.count }

        /// The frames `bytes` complete: `.reply(command:data:)` with bytes 2…7, or refusals.
        public mutating func feed(_ bytes: some Sequence<UInt8>) -> [SensorFrame] {
            buffer.decode(bytes, header: 0xFF) { buffer, pending, frames in
                guard pending.count >= frameLength else { return false }
                let frame = Array(pending.prefix(frameLength))
                // A command's second byte is 01 (the sensor number): an echo of one, or
                // two FF in a row, is not a reply.
                if frame[1] == 0x01 || frame[1] == 0xFF {
                    buffer.refuseFirst(.malformed, &frames)
                } else if checksum(frame) != frame[8] {
                    buffer.refuseFirst(.checksum, &frames)
                } else {
                    buffer.bytes.removeFirst(frameLength)
                    frames.append(.reply(command: frame[1], data: Array(frame[2...7])))
                }
                return true
            }
        }
    }
}
