import Readings

/// What airloc sends a sensor of each family at each step of a reading, and how its bytes
/// are read back: the family-specific half of a driver (``SensorCycle`` is the other).
///
/// Contract: `wake` brings the sensor from sleep (or from power-up) to measuring in a mode
/// where it answers `poll` with one reading; `sleep` stops its fan and laser (the laser
/// lasts about 8,000 h). The SDS011 is put in query mode with no working period of its
/// own, the Plantower in passive mode, the SPS30 measures in floats.
public struct SensorCommands: Sendable {
    /// Frames that wake it.
    public var wake: [[UInt8]]
    /// The frame that asks one reading.
    public var poll: [UInt8]
    /// Frames that put it to sleep.
    public var sleep: [[UInt8]]
    /// Asked once after waking, for the serial number (SPS30); nil where frames carry an id
    /// (SDS011) or there is none (Plantower).
    public var identify: [UInt8]?

    /// The commands of `model`.
    public init(_ model: SensorModel) {
        switch model.family {
        case .sds011:
            wake = [SDS011Protocol.work, SDS011Protocol.queryMode, SDS011Protocol.continuous]
            poll = SDS011Protocol.query
            sleep = [SDS011Protocol.sleep]
            identify = nil
        case .plantower:
            wake = [PlantowerProtocol.wake, PlantowerProtocol.passiveMode]
            poll = PlantowerProtocol.read
            sleep = [PlantowerProtocol.sleep]
            identify = nil
        case .sps30:
            wake = [SPS30Protocol.wake, SPS30Protocol.start]
            poll = SPS30Protocol.read
            sleep = [SPS30Protocol.stop, SPS30Protocol.sleep]
            identify = SPS30Protocol.serialNumber
        }
    }
}

/// Any family's decoder behind one type.
public struct SensorDecoder: FrameDecoder {
    private enum Kind: Sendable {
        case sds011(SDS011Protocol.Decoder)
        case plantower(PlantowerProtocol.Decoder)
        case sps30(SPS30Protocol.Decoder)
    }

    private var kind: Kind

    /// A decoder for `model`'s frames.
    public init(_ model: SensorModel) {
        switch model.family {
        case .sds011: kind = .sds011(SDS011Protocol.Decoder())
        case .plantower: kind = .plantower(PlantowerProtocol.Decoder(humidity: model.measuresHumidity))
        case .sps30: kind = .sps30(SPS30Protocol.Decoder())
        }
    }

    /// The frames `bytes` complete.
    public mutating func feed(_ bytes: [UInt8]) -> [SensorFrame] {
        switch kind {
        case .sds011(var decoder):
            defer { kind = .sds011(decoder) }
            return decoder.feed(bytes)
        case .plantower(var decoder):
            defer { kind = .plantower(decoder) }
            return decoder.feed(bytes)
        case .sps30(var decoder):
            defer { kind = .sps30(decoder) }
            return decoder.feed(bytes)
        }
    }
}
