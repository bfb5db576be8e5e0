import Foundation

/// How much each kind of name weighs in a search, applied when searching: the data
/// file stores only facts about an entry (its target's population, whether that is a
/// capital or an admin seat, whether the place has any other name, what kind of target
/// it is, whether the name is its primary one), so changing a weight here changes the
/// ranking without rebuilding `gazetteer.bin`.
///
/// Contract: an entry's importance is its population byte (8·log2 of population + 1,
/// so 8 units per doubling) plus the weight of its class, ``weight(of:)``; every weight
/// is a population factor in those units. The hot-prefix lists keep the best entries of
/// each class apart, so any weights here give the same answers as a scan of the range.
enum RankingWeights {
    /// Capitals (PPLC) weigh 3×: "Par" is Paris, not Paraná.
    static let capital = 13
    /// Admin seats (PPLA) weigh 1.5×.
    static let seat = 5
    /// A place GeoNames knows by no other name at all (no exonym, no spelling in any
    /// language) weighs half. Towns people outside them talk about are named in other
    /// languages; what has no other name is mostly a neighbourhood or census tract
    /// entered as a place ("Woodbridge" of 25,000 in Irvine, CA, next to Woodbridge, NJ
    /// of 19,000 with 16 names). Halving reorders only places within a factor of two of
    /// each other: of the 4,527 names shared by several places, one of 20,000 people or
    /// more, 67 change their first result (docs/performance.md).
    static let noOtherName = -8
    /// Regions weigh a thirty-second and countries a quarter (their population is
    /// spread over many places), so "Par" is Paris before Paraguay while "Cal" is
    /// California.
    static let region = -40
    static let country = -16
    /// The start of an alternate name weighs a sixteenth of its place: "Par" must be
    /// Paris, not Barcelona through its nickname "Parselona", and "San Fra" San
    /// Francisco, not Quito (twice the people, and a capital) through its long form "San
    /// Francisco de Quito".
    static let alternatePrefix = -32
    /// A whole alternate name weighs an eighth, and earns the exact bonus
    /// (``CandidatePool``, +40) on top: "Londres" is London, "New York" the city, not
    /// the state.
    static let alternateExact = -24

    /// The class bits of an entry's kind byte (``SearchTargetKind``): target kind, seat,
    /// no other name, alternate. The exact-only flag is not a class: those entries never
    /// compete as prefixes.
    static let classMask: UInt8 = 0x7F

    /// The weight of an entry of `kindByte`'s class as a prefix or typo match
    /// (`exact` false) or as a whole name.
    @inline(__always) static func weight(of kindByte: UInt8, exact: Bool) -> Int {
        var weight = 0
        switch kindByte & 0x03 {
        case SearchTargetKind.admin1.rawValue: weight = region
        case SearchTargetKind.country.rawValue: weight = country
        default:
            switch kindByte & SearchTargetKind.seatMask {
            case SearchTargetKind.capitalFlag: weight = capital
            case SearchTargetKind.seatFlag: weight = seat
            default: break
            }
            if kindByte & SearchTargetKind.noOtherNameFlag != 0 { weight += noOtherName }
        }
        if kindByte & SearchTargetKind.alternateFlag != 0 { weight += exact ? alternateExact : alternatePrefix }
        return weight
    }

    /// 8·log2(population + 1), rounded: the stored population byte.
    static func populationByte(_ population: Int) -> UInt8 {
        UInt8(clamping: Int((8 * log2(Double(max(population, 0)) + 1)).rounded()))
    }
}
