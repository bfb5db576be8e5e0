/// A particulate sensor airloc can read, as `[sensor] model` names it.
///
/// Contract: each model belongs to one protocol family, which fixes the baud rate, the
/// frames and the commands; what the model adds (temperature and humidity on the
/// PMS5003T, PM4.0 on the SPS30) is in ``fields``.
public enum SensorModel: String, Sendable, CaseIterable {
    case sds011
    case pms5003
    case pms5003t
    case pmsa003
    case pms7003
    case pms1003
    case pms3003
    case sps30

    public enum Family: String, Sendable {
        /// Nova Fitness SDS011: 10-byte frames, 19-byte commands, 9600 baud.
        case sds011
        /// Plantower PMS: 32-byte frames, 7-byte commands, 9600 baud.
        case plantower
        /// Sensirion SPS30 over UART: SHDLC with byte stuffing, 115200 baud.
        case sps30
    }

    public var family: Family {
        switch self {
        case .sds011: return .sds011
        case .pms5003, .pms5003t, .pmsa003, .pms7003, .pms1003, .pms3003: return .plantower
        case .sps30: return .sps30
        }
    }

    /// The name people know it by ("SDS011", "PMS5003T").
    public var displayName: String { rawValue.uppercased() }

    public var baud: Int { family == .sps30 ? 115_200 : 9600 }

    /// True for the Plantower T variant, whose frame carries temperature and humidity.
    public var measuresHumidity: Bool { self == .pms5003t }

    /// The largest mass concentration the sensor reports, µg/m³: above it a value is
    /// flagged out of range.
    public var rangeTop: Double {
        switch family {
        case .sds011: return 999.9
        case .plantower, .sps30: return 1000
        }
    }

    /// Seconds after waking before readings are stable (the reference's figures).
    public var stabilisationSeconds: Double { family == .sps30 ? 8 : 30 }
}

/// One set of values a sensor sent: µg/m³ for mass, °C and % for the T variant.
///
/// Contract: a field is nil when the sensor does not measure it; values are as the frame
/// gives them (ATM values for Plantower, with the CF=1 PM2.5 beside them), never made up.
public struct ParticulateValues: Sendable, Equatable {
    public var pm1_0: Double?
    public var pm2_5: Double
    public var pm4_0: Double?
    public var pm10: Double
    /// Plantower's PM2.5 at "CF=1", where the US EPA correction starts.
    public var pm2_5CF1: Double?
    public var temperatureC: Double?
    public var relativeHumidity: Double?

    public init(
        pm1_0: Double? = nil, pm2_5: Double, pm4_0: Double? = nil, pm10: Double, pm2_5CF1: Double? = nil,
        temperatureC: Double? = nil, relativeHumidity: Double? = nil
    ) {
        (self.pm1_0, self.pm2_5, self.pm4_0, self.pm10) = (pm1_0, pm2_5, pm4_0, pm10)
        (self.pm2_5CF1, self.temperatureC, self.relativeHumidity) = (pm2_5CF1, temperatureC, relativeHumidity)
    }
}

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
