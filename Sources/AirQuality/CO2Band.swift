/// How well a room is aired, from its CO₂: the bands indoor-air guidance commonly draws.
///
/// Contract: ≤ 800 ppm `good`, ≤ 1,400 ppm `moderate`, above that `poor`. With outdoor air
/// at about 400 ppm the edges are EN 13779's indoor-air classes, which count CO₂ above
/// outdoor air: 400 above is where IDA 1 ("high") ends, 1,000 above where IDA 3
/// ("moderate") ends and IDA 4 ("low") begins (docs/sensors.md cites it). CO₂ measures how
/// much of the air was breathed before, not a pollutant at these levels.
public enum CO2Band: String, Sendable, CaseIterable {
    case good
    case moderate
    case poor

    /// The band of `ppm`.
    public init(ppm: Double) {
        switch ppm {
        case ...800: self = .good
        case ...1400: self = .moderate
        default: self = .poor
        }
    }

    /// "Good", "Moderate", "Poor".
    public var name: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }

    /// What to do about it.
    public var advice: String {
        switch self {
        case .good: return "well aired"
        case .moderate: return "air the room soon"
        case .poor: return "air the room now"
        }
    }

    /// The colour as "#RRGGBB": the EPA's good, moderate and unhealthy ones, so one card
    /// speaks one colour language.
    public var color: String {
        switch self {
        case .good: return "#00E400"
        case .moderate: return "#FFFF00"
        case .poor: return "#FF0000"
        }
    }

    /// The 256-colour terminal colour of ``color``.
    public var terminalColor: Int {
        switch self {
        case .good: return AQICategory.good.terminalColor
        case .moderate: return AQICategory.moderate.terminalColor
        case .poor: return AQICategory.unhealthy.terminalColor
        }
    }
}
