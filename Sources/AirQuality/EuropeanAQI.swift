/// The European Air Quality Index (EEA bands of 2024; reference/aqi.md): 0-20 good, 20-40
/// fair, 40-60 moderate, 60-80 poor, 80-100 very poor, above 100 extremely poor.
///
/// Contract: ``init(index:)`` maps every index ≥ 0 to exactly one band; a value on a
/// band edge belongs to the lower band (20 is good, 21 fair), as the EEA's "0-20, 20-40"
/// reads. Raw values are part of the JSON schema. The index itself comes from one table
/// (``index(_:)``), for the model's concentrations and a sensor's alike, so that more
/// particles never read as a lower index; Open-Meteo's own `european_aqi` is kept beside
/// it (``AirQualityReading/serviceEuropeanAQI``) and said where it differs.
public enum EuropeanAQICategory: String, Sendable, Codable, CaseIterable {
    case good
    case fair
    case moderate
    case poor
    case veryPoor = "very_poor"
    case extremelyPoor = "extremely_poor"

    /// The band of `index`.
    public init(index: Int) {
        switch index {
        case ..<21: self = .good
        case 21...40: self = .fair
        case 41...60: self = .moderate
        case 61...80: self = .poor
        case 81...100: self = .veryPoor
        default: self = .extremelyPoor
        }
    }

    /// The EEA label: "Good", "Very poor", ...
    public var name: String {
        switch self {
        case .good: return "Good"
        case .fair: return "Fair"
        case .moderate: return "Moderate"
        case .poor: return "Poor"
        case .veryPoor: return "Very poor"
        case .extremelyPoor: return "Extremely poor"
        }
    }

    /// The EEA's colour for the band, "#RRGGBB".
    public var color: String {
        switch self {
        case .good: return "#50F0E6"
        case .fair: return "#50CCAA"
        case .moderate: return "#F0E641"
        case .poor: return "#FF5050"
        case .veryPoor: return "#960032"
        case .extremelyPoor: return "#7D2181"
        }
    }

    /// The closest entry of the 256-colour terminal palette.
    public var terminalColor: Int {
        switch self {
        case .good: return 87
        case .fair: return 79
        case .moderate: return 185
        case .poor: return 203
        case .veryPoor: return 88
        case .extremelyPoor: return 54
        }
    }

    /// The face the card shows for it.
    public var emoji: String {
        switch self {
        case .good: return "😊"
        case .fair: return "🙂"
        case .moderate: return "😐"
        case .poor: return "😷"
        case .veryPoor: return "🤢"
        case .extremelyPoor: return "☠️"
        }
    }

    /// The EEA's health advice for the general population.
    public var advice: String {
        switch self {
        case .good: return "The air quality is good. Enjoy your usual outdoor activities."
        case .fair: return "Enjoy your usual outdoor activities."
        case .moderate:
            return "Enjoy your usual outdoor activities; sensitive groups consider reducing intense outdoor activity."
        case .poor: return "Consider reducing intense activities outdoors if you have symptoms."
        case .veryPoor: return "Reduce physical activities outdoors, especially if you have symptoms."
        case .extremelyPoor: return "Reduce physical activities outdoors."
        }
    }
}

/// Which index a report leads with.
public enum AQIScale: String, Sendable, CaseIterable {
    /// The US EPA AQI (0-500), the default.
    case us
    /// The European AQI (EEA bands).
    case eu
}

extension EuropeanAQICategory {
    /// The band edges, µg/m³, of each pollutant the index covers (reference/aqi.md: the
    /// EEA's 2024 bands on hourly values, as Open-Meteo computes `european_aqi` since
    /// 2026-08-14). Carbon monoxide is not part of the index.
    public static let edges: [Pollutant: [Double]] = [
        .pm2_5: [0, 5, 15, 50, 90, 140],
        .pm10: [0, 15, 45, 120, 195, 270],
        .nitrogenDioxide: [0, 10, 25, 60, 100, 150],
        .ozone: [0, 60, 100, 120, 160, 180],
        .sulphurDioxide: [0, 20, 40, 125, 190, 275],
    ]

    /// The European index of `concentrations` (µg/m³): each pollutant's sub-index (band
    /// position × 20, interpolated, open-ended above 100 on the last band's slope), the
    /// largest of them. Nil when none of the covered pollutants is given.
    public static func index(_ concentrations: [Pollutant: Double]) -> Int? {
        let indices = concentrations.compactMap { pollutant, value in
            Pollutant.possible.contains(value) ? edges[pollutant].map { subIndex(value, edges: $0) } : nil
        }
        return indices.max().map { Int($0.rounded()) }
    }

    /// The European index of measured PM2.5 and PM10, on the same table as the model's.
    public static func index(pm2_5: Double, pm10: Double?) -> Int {
        var values: [Pollutant: Double] = [.pm2_5: pm2_5]
        values[.pm10] = pm10
        return index(values) ?? 0
    }

    static func subIndex(_ value: Double, edges: [Double]) -> Double {
        let value = max(0, value)
        for band in 1..<edges.count where value <= edges[band] {
            let (low, high) = (edges[band - 1], edges[band])
            return Double(band - 1) * 20 + (value - low) / (high - low) * 20
        }
        let (low, high) = (edges[edges.count - 2], edges[edges.count - 1])
        return 100 + (value - high) / (high - low) * 20
    }
}
