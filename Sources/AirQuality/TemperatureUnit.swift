import Foundation

/// Temperatures for people: °C or °F, one decimal (seed 002's formatTemperature).
public enum TemperatureUnit: String, Sendable, CaseIterable {
    case metric
    case imperial

    /// The unit a place's people expect: Fahrenheit in the United States and its
    /// territories, Celsius elsewhere.
    public static func usual(forCountryCode code: String?) -> TemperatureUnit {
        ["US", "PR", "GU", "VI", "AS", "MP", "UM"].contains(code?.uppercased() ?? "") ? .imperial : .metric
    }

    /// "°C" or "°F".
    public var symbol: String { self == .metric ? "°C" : "°F" }

    /// A temperature, "12.3 °C" / "54.1 °F".
    public func format(celsius: Double) -> String {
        let value = self == .metric ? celsius : celsius * 9 / 5 + 32
        return String(format: "%.1f", Self.clean(value)) + " " + symbol
    }

    /// A difference of temperatures, always signed: "+1.8 °C", "-0.4 °F", "±0.0 °C".
    public func formatDifference(celsius: Double) -> String {
        let value = Self.clean(self == .metric ? celsius : celsius * 9 / 5)
        let text = String(format: "%.1f", abs(value))
        let sign = text == "0.0" ? "±" : (value > 0 ? "+" : "-")
        return "\(sign)\(text) \(symbol)"
    }

    /// Avoids "-0.0".
    private static func clean(_ value: Double) -> Double { abs(value) < 0.05 ? 0 : value }
}
