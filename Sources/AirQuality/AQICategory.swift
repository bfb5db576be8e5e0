/// The six US EPA AQI categories (revision effective 2024-05-06) with their official
/// colours, and the seed app's emoji, description and advice.
///
/// Contract: ``init(aqi:)`` maps every integer AQI ≥ 0 to exactly one category
/// (0-50 good, 51-100 moderate, ..., 301 and above hazardous); values above 500 are
/// "beyond the AQI" but still hazardous. Raw values are part of the JSON schema.
public enum AQICategory: String, Sendable, Codable, CaseIterable {
    case good
    case moderate
    case unhealthyForSensitiveGroups = "unhealthy_for_sensitive_groups"
    case unhealthy
    case veryUnhealthy = "very_unhealthy"
    case hazardous

    /// The category of `aqi`.
    public init(aqi: Int) {
        switch aqi {
        case ..<51: self = .good
        case 51...100: self = .moderate
        case 101...150: self = .unhealthyForSensitiveGroups
        case 151...200: self = .unhealthy
        case 201...300: self = .veryUnhealthy
        default: self = .hazardous
        }
    }

    /// The EPA name: "Good", "Unhealthy for Sensitive Groups", ...
    public var name: String {
        switch self {
        case .good: return "Good"
        case .moderate: return "Moderate"
        case .unhealthyForSensitiveGroups: return "Unhealthy for Sensitive Groups"
        case .unhealthy: return "Unhealthy"
        case .veryUnhealthy: return "Very Unhealthy"
        case .hazardous: return "Hazardous"
        }
    }

    /// EPA's official colour as "#RRGGBB".
    public var color: String {
        switch self {
        case .good: return "#00E400"
        case .moderate: return "#FFFF00"
        case .unhealthyForSensitiveGroups: return "#FF7E00"
        case .unhealthy: return "#FF0000"
        case .veryUnhealthy: return "#8F3F97"
        case .hazardous: return "#7E0023"
        }
    }

    /// The 256-colour terminal palette entry closest to ``color``.
    public var terminalColor: Int {
        switch self {
        case .good: return 46
        case .moderate: return 226
        case .unhealthyForSensitiveGroups: return 208
        case .unhealthy: return 196
        case .veryUnhealthy: return 96
        case .hazardous: return 88
        }
    }

    /// The face the card shows for it.
    public var emoji: String {
        switch self {
        case .good: return "🙂"
        case .moderate: return "😐"
        case .unhealthyForSensitiveGroups: return "😷"
        case .unhealthy: return "🤢"
        case .veryUnhealthy: return "😵"
        case .hazardous: return "☠️"
        }
    }

    /// EPA's one-line description of the category.
    public var description: String {
        switch self {
        case .good: return "Air quality is satisfactory; air pollution poses little or no risk."
        case .moderate:
            return
                "Air quality is acceptable; some pollutants may be a concern for a very small number of unusually sensitive people."
        case .unhealthyForSensitiveGroups:
            return
                "Members of sensitive groups may experience health effects; the general public is less likely to be affected."
        case .unhealthy:
            return
                "Some members of the general public may experience health effects; sensitive groups may experience more serious effects."
        case .veryUnhealthy: return "Health alert: the risk of health effects is increased for everyone."
        case .hazardous: return "Health warning of emergency conditions: everyone is more likely to be affected."
        }
    }

    /// Advice paraphrased from EPA's Air Quality Guide (particle pollution). Sensitive
    /// groups: people with heart or lung disease, older adults, children and teenagers.
    public var advice: String {
        switch self {
        case .good: return "No precautions needed."
        case .moderate: return "Unusually sensitive people should consider reducing prolonged or heavy exertion."
        case .unhealthyForSensitiveGroups: return "Sensitive groups should reduce prolonged or heavy exertion."
        case .unhealthy:
            return "Sensitive groups should avoid prolonged or heavy exertion; everyone else should reduce it."
        case .veryUnhealthy:
            return
                "Sensitive groups should avoid all outdoor physical activity; everyone else should avoid prolonged or heavy exertion."
        case .hazardous: return "Everyone should avoid all outdoor physical activity."
        }
    }
}
