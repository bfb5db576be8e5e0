import Foundation

/// How a reading is written for people, wherever it is shown (the terminal's card, the
/// device's page): Open-Meteo's own precision for a concentration, pollen in one line.
extension PollenReading {
    /// "Tree high (Birch 120) · Grass low · Weed none", or "not available here".
    public static func summary(_ pollen: PollenReading) -> String {
        guard pollen.isAvailable else { return "not available here (Europe only, in season)" }
        return PollenGroup.allCases.compactMap { group -> String? in
            guard let top = pollen.level(of: group) else { return nil }
            var text = "\(group.name) \(top.level.name)"
            if top.level > .none && group == .tree { text += " (\(top.species.name) \(Int(top.value.rounded())))" }
            return text
        }.joined(separator: " · ")
    }
}

/// Open-Meteo's own precision: one decimal, none for values ≥ 100 (CO 220).
public func formatConcentration(_ value: Double) -> String {
    value >= 100 ? String(Int(value.rounded())) : String(format: "%.1f", value)
}
