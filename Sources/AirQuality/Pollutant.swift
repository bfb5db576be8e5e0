/// The six pollutants of the US AQI, as Open-Meteo names them.
///
/// Contract: `rawValue` is the Open-Meteo variable name and the JSON `id`; concentrations
/// are in µg/m³ as Open-Meteo reports them (CO included, not ppm).
public enum Pollutant: String, Sendable, Codable, CaseIterable {
    /// What a concentration of any of them can be, µg/m³: none, up to a gram a cubic
    /// metre (a smoke plume's PM is in the thousands). Beyond it a number is no air (a
    /// service answer of 5.6e61 µg/m³ of ozone crashed the European index; fuzzing found
    /// it) and is not taken.
    public static let possible: ClosedRange<Double> = 0...1_000_000

    case pm2_5
    case pm10
    case nitrogenDioxide = "nitrogen_dioxide"
    case sulphurDioxide = "sulphur_dioxide"
    case ozone
    case carbonMonoxide = "carbon_monoxide"

    /// Short display name with the chemists' subscripts: "PM2.5", "NO₂".
    public var symbol: String {
        switch self {
        case .pm2_5: return "PM2.5"
        case .pm10: return "PM10"
        case .nitrogenDioxide: return "NO₂"
        case .sulphurDioxide: return "SO₂"
        case .ozone: return "O₃"
        case .carbonMonoxide: return "CO"
        }
    }

    /// ASCII name for machine output and terminals without Unicode.
    public var name: String {
        switch self {
        case .pm2_5: return "PM2.5"
        case .pm10: return "PM10"
        case .nitrogenDioxide: return "NO2"
        case .sulphurDioxide: return "SO2"
        case .ozone: return "O3"
        case .carbonMonoxide: return "CO"
        }
    }

    /// The unit, with the micro sign (Open-Meteo writes the Greek mu; we normalise).
    public var unit: String { "µg/m³" }

    /// Open-Meteo's sub-index variable for this pollutant.
    public var subIndexVariable: String { "us_aqi_" + rawValue }

    /// Open-Meteo's European AQI sub-index variable; CO has none.
    public var europeanSubIndexVariable: String? { self == .carbonMonoxide ? nil : "european_aqi_" + rawValue }
}
