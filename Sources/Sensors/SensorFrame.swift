import Readings

/// What a decoder makes of the bytes: a reading, a reply to a command, or a frame that
/// was refused (and skipped: the decoder resynchronises on the next header).
public enum SensorFrame: Sendable, Equatable {
    case values(ParticulateValues, sensorID: String?)
    /// A reply to command `command` with its data bytes (SPS30: the state byte first).
    case reply(command: UInt8, data: [UInt8])
    case refused(FrameProblem)
}

/// Why bytes were not a frame. None of them ever becomes a value.
public enum FrameProblem: Sendable, Equatable, CustomStringConvertible {
    case checksum
    /// A header whose length field or tail is not the protocol's.
    case malformed
    /// Bytes before a header that belong to no frame.
    case garbage(count: Int)

    /// The frame for people.
    public var description: String {
        switch self {
        case .checksum: return "a frame with a wrong checksum"
        case .malformed: return "a malformed frame"
        case .garbage(let count): return "\(count) byte\(count == 1 ? "" : "s") that belong to no frame"
        }
    }
}

/// The bytes from the line not yet part of a frame, and the skipping every decoder does:
/// what comes before a header is garbage, a header that turns out not to start a frame is
/// dropped and the search goes on from the next byte.
struct FrameBuffer: Sendable {
    var bytes: [UInt8] = []

    /// Appends `input` and runs `step` at each `header` byte until it asks for more bytes
    /// (returns false): `step` sees the bytes from the header on, takes a frame off the
    /// buffer or refuses the header byte.
    mutating func decode(
        _ input: some Sequence<UInt8>, header: UInt8,
        _ step: (inout FrameBuffer, [UInt8], inout [SensorFrame]) -> Bool
    ) -> [SensorFrame] {
        bytes.append(contentsOf: input)
        var frames: [SensorFrame] = []
        while skip(to: header, &frames) {
            let pending = bytes
            guard step(&self, pending, &frames) else { break }
        }
        return frames
    }

    /// Drops what comes before the next `header` byte (reported as garbage); false when no
    /// header is left, and the buffer is then empty.
    mutating func skip(to header: UInt8, _ frames: inout [SensorFrame]) -> Bool {
        guard let start = bytes.firstIndex(of: header) else {
            if !bytes.isEmpty { frames.append(.refused(.garbage(count: bytes.count))) }
            bytes.removeAll()
            return false
        }
        if start > 0 {
            frames.append(.refused(.garbage(count: start)))
            bytes.removeFirst(start)
        }
        return true
    }

    /// The first byte does not start a frame after all: refused as `problem`, dropped.
    mutating func refuseFirst(_ problem: FrameProblem, _ frames: inout [SensorFrame]) {
        frames.append(.refused(problem))
        bytes.removeFirst()
    }
}
