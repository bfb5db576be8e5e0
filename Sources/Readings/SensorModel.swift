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

    /// The protocol family a model speaks.
    public enum Family: String, Sendable {
        /// Nova Fitness SDS011: 10-byte frames, 19-byte commands, 9600 baud.
        case sds011
        /// Plantower PMS: 32-byte frames, 7-byte commands, 9600 baud.
        case plantower
        /// Sensirion SPS30 over UART: SHDLC with byte stuffing, 115200 baud.
        case sps30
    }

    /// Its protocol family.
    public var family: Family {
        switch self {
        case .sds011: return .sds011
        case .pms5003, .pms5003t, .pmsa003, .pms7003, .pms1003, .pms3003: return .plantower
        case .sps30: return .sps30
        }
    }

    /// The name people know it by ("SDS011", "PMS5003T").
    public var displayName: String { rawValue.uppercased() }

    /// Its serial speed.
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
