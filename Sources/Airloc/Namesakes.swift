import Geo

/// When a name means more than one place: the rule `airloc use` and `[location] place`
/// share, so a name is ambiguous in both or in neither.
///
/// Contract: given the places of one exact name, best first, the name is ambiguous when
/// there are several and the first is not at least 5 times as populous as the second
/// (Paris, France over Paris, Texas is not ambiguous; the Springfields are). Returns the
/// namesakes to choose from (at most 9), or none when the name is clear.
public enum Namesakes {
    /// The places of `namesakes` a name alone cannot tell apart.
    public static func ambiguous(_ namesakes: [Place]) -> [Place] {
        guard namesakes.count > 1 else { return [] }
        if namesakes[0].population >= 5 * max(namesakes[1].population, 1) { return [] }
        return Array(namesakes.prefix(9))
    }
}
