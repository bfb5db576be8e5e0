import Foundation
import Readings
import Sensors

/// `airloc-bench sensor-decode`: each family's decoder over a long stream of frames, one
/// in ten spoilt (a flipped byte), as a serial line with noise delivers them.
enum SensorBench {
    static func frames(_ model: SensorModel) -> [UInt8] {
        switch model.family {
        case .sds011:
            let body: [UInt8] = [0x7B, 0x00, 0xC9, 0x00, 0xA1, 0x60]
            return [0xAA, 0xC0] + body + [body.reduce(0, &+), 0xAB]
        case .plantower:
            var frame: [UInt8] = [0x42, 0x4D, 0x00, 0x1C]
            for value in [5, 18, 20, 6, 12, 21, 900, 300, 80, 215, 452, 1, 0] {
                frame += [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            let sum = frame.reduce(0) { $0 + Int($1) }
            return frame + [UInt8(sum >> 8), UInt8(sum & 0xFF)]
        case .sps30:
            let floats: [Float] = [7.4, 12.3, 16.2, 20.1, 30, 40, 45, 46, 46.5, 0.6]
            let data = floats.flatMap { value in withUnsafeBytes(of: value.bitPattern.bigEndian) { Array($0) } }
            let body: [UInt8] = [0x00, 0x03, 0x00, UInt8(data.count)] + data
            var out: [UInt8] = [0x7E]
            for byte in body + [~body.reduce(0, &+)] {
                switch byte {
                case 0x7E: out += [0x7D, 0x5E]
                case 0x7D: out += [0x7D, 0x5D]
                case 0x11: out += [0x7D, 0x31]
                case 0x13: out += [0x7D, 0x33]
                default: out.append(byte)
                }
            }
            return out + [0x7E]
        }
    }

    static func run() {
        for model in [SensorModel.sds011, .pms5003t, .sps30] {
            let frame = frames(model)
            var stream: [UInt8] = []
            for index in 0..<100_000 {
                var copy = frame
                if index % 10 == 9 { copy[copy.count / 2] ^= 0x01 }
                stream += copy
            }
            var decoder = SensorDecoder(model)
            let start = ContinuousClock.now
            var values = 0
            // Fed in 64-byte reads, as a serial port hands them over.
            var offset = 0
            while offset < stream.count {
                let end = min(offset + 64, stream.count)
                for frame in decoder.feed(Array(stream[offset..<end])) { if case .values = frame { values += 1 } }
                offset = end
            }
            let seconds =
                Double((ContinuousClock.now - start).components.attoseconds) / 1e18
                + Double((ContinuousClock.now - start).components.seconds)
            print(
                String(
                    format: "%@ decoder: %.1f MB/s, %.0f frames/s (%d good of 100000, 1 in 10 spoilt)",
                    model.rawValue, Double(stream.count) / seconds / 1e6, 100_000 / seconds, values))
        }
    }
}
