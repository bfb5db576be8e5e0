/// Pollen in the air: the six species Open-Meteo reports (Europe only, in season), the
/// seed app's Tree / Grass / Weed summary, and one reading scale.
///
/// Contract: a species whose value the service left null is unknown, not zero; when all
/// six are null the report says "not available here". Levels use one documented scale
/// (reference/aqi.md, a common birch/grass scale): none 0, low 1-10, moderate 11-50,
/// high 51-200 for trees and 51-100 for grass and weeds, very high above.
public enum PollenSpecies: String, Sendable, CaseIterable, Codable {
    case alder = "alder_pollen"
    case birch = "birch_pollen"
    case olive = "olive_pollen"
    case grass = "grass_pollen"
    case mugwort = "mugwort_pollen"
    case ragweed = "ragweed_pollen"

    /// "Birch".
    public var name: String {
        switch self {
        case .alder: return "Alder"
        case .birch: return "Birch"
        case .olive: return "Olive"
        case .grass: return "Grass"
        case .mugwort: return "Mugwort"
        case .ragweed: return "Ragweed"
        }
    }

    /// Trees, grasses or weeds: how the card groups them.
    public var group: PollenGroup {
        switch self {
        case .alder, .birch, .olive: return .tree
        case .grass: return .grass
        case .mugwort, .ragweed: return .weed
        }
    }

    /// The level of `grainsPerCubicMetre` of this species.
    public func level(_ grainsPerCubicMetre: Double) -> PollenLevel {
        let high = group == .tree ? 200.0 : 100.0
        switch grainsPerCubicMetre {
        case ..<0.5: return .none
        case ..<10.5: return .low
        case ..<50.5: return .moderate
        case ..<(high + 0.5): return .high
        default: return .veryHigh
        }
    }
}

/// The seed app's summary groups.
public enum PollenGroup: String, Sendable, CaseIterable, Codable {
    case tree
    case grass
    case weed

    /// "Grass": the name on the card.
    public var name: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
}

/// A pollen level; raw values are part of the JSON schema.
public enum PollenLevel: String, Sendable, Codable, Comparable, CaseIterable {
    case none
    case low
    case moderate
    case high
    case veryHigh = "very_high"

    /// "low", "moderate", "high", "very high".
    public var name: String {
        switch self {
        case .none: return "none"
        case .low: return "low"
        case .moderate: return "moderate"
        case .high: return "high"
        case .veryHigh: return "very high"
        }
    }

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    /// Ordered from none to very high.
    public static func < (a: PollenLevel, b: PollenLevel) -> Bool { a.rank < b.rank }
}

/// The pollen part of a reading.
public struct PollenReading: Sendable, Hashable {
    /// grains/m³ per species, only those the service reported.
    public var species: [PollenSpecies: Double]

    /// The readings of each species (grains/m³).
    public init(species: [PollenSpecies: Double]) { self.species = species }

    /// False when the service reported no species at all (outside Europe, out of season).
    public var isAvailable: Bool { !species.isEmpty }

    /// Each group's level: the highest of its reported species; nil when none reported.
    public func level(of group: PollenGroup) -> (level: PollenLevel, species: PollenSpecies, value: Double)? {
        species.filter { $0.key.group == group }
            .map { (level: $0.key.level($0.value), species: $0.key, value: $0.value) }
            .max { a, b in a.level < b.level || (a.level == b.level && a.value < b.value) }
    }

    /// The species with the highest level (ties: the larger count), if any is above none.
    public var dominant: (species: PollenSpecies, level: PollenLevel)? {
        guard
            let best = species.map({ (species: $0.key, level: $0.key.level($0.value), value: $0.value) })
                .max(by: { a, b in a.level < b.level || (a.level == b.level && a.value < b.value) }),
            best.level > .none
        else { return nil }
        return (best.species, best.level)
    }
}
