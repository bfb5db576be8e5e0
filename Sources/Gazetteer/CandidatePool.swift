import Foundation
import Geo

/// Collects search candidates, keeps the best match per place, scores and ranks them.
///
/// The score is in units of the stored importance (8 per doubling of population), so
/// each bonus reads as a population factor: an exact name counts as 32× the population
/// (40: "Kent" is Kent, WA before Kentucky; "Schleswig" the town before the Land), a qualified name ("Paris, TX") is ranked above every unqualified one, the
/// location bias is up to 100× (53) at the focus point, fading with distance, and a
/// typo puts a match below every exact or prefix match.
struct CandidatePool {
    let gazetteer: Gazetteer
    let near: Coordinate?

    private struct Candidate {
        var entry: Int
        var match: SearchResult.Match
        var score: Double
        var distance: Double?
    }

    private var best: [Int: Candidate] = [:]
    private(set) var typoCount = 0
    private(set) var hasExactMatch = false
    /// The best score of an exact or prefix match so far (typos excluded).
    private(set) var bestNameScore = -Double.infinity

    /// True when the query was typed in capitals ("MUN", "NYC"): then a code is meant
    /// and its exact match earns the exact bonus. Typed in lower case ("mun") it is most
    /// likely the start of a name, and an airport code of a mid-sized city must not
    /// outrank Munich: the code still matches, ranked by its place's importance alone.
    let codesAreMeant: Bool

    init(gazetteer: Gazetteer, near: Coordinate?, codesAreMeant: Bool = true) {
        self.gazetteer = gazetteer
        self.near = near
        self.codesAreMeant = codesAreMeant
        // A typo walk offers a few hundred candidates; growing the table step by step
        // was a tenth of a slow search.
        best.reserveCapacity(512)
    }

    var count: Int { best.count }

    static let exactBonus = 40.0
    static let qualifiedBonus = 1000.0
    static let typoPenalty = 1000.0
    static let perTypoPenalty = 16.0
    /// Bias for a place `metres` from the focus point: 8·log2(1 + 99·e^(−d/150 km)):
    /// 100× at the point, 37× at 150 km, 4.5× at 500 km, 1.1× at 1,000 km. Your own
    /// London (Ontario) beats London, England, 60× bigger with its capital weight; a
    /// Paris of 24,000 in Texas does not bury the French capital.
    static func bias(metres: Double) -> Double {
        8 * log2(1 + 99 * exp(-metres / 150_000))
    }

    /// `tier`: 2 qualified exact, 1 exact or prefix, 0 typo.
    mutating func offer(entry: Int, match: SearchResult.Match, tier: Int) {
        let index = gazetteer.index
        var score: Double
        if case .exact = match {
            score = Double(index.exactImportance(entry))
            if codesAreMeant || !index.isExactOnly(entry) { score += Self.exactBonus }
            hasExactMatch = true
        } else {
            score = Double(index.prefixImportance(entry))
        }
        if tier == 2 { score += Self.qualifiedBonus }
        if case .typo(let n) = match { score -= Self.typoPenalty + Self.perTypoPenalty * Double(n) }
        var distance: Double?
        if let near {
            let target = index.target(entry)
            let point: Coordinate?
            switch index.kind(entry) {
            case .place: point = target < gazetteer.count ? gazetteer.coordinate(at: target) : nil
            case .admin1: point = gazetteer.admin1Place(target)?.coordinate
            case .country: point = gazetteer.countryPlace(target)?.coordinate
            }
            if let point {
                let metres = point.distance(to: near)
                distance = metres
                score += Self.bias(metres: metres)
            }
        }
        let key = Int(index.kind(entry).rawValue) << 32 | index.target(entry)
        if let existing = best[key], existing.score >= score { return }
        if case .typo = match, best[key] == nil { typoCount += 1 }
        if case .typo = match {} else { bestNameScore = max(bestNameScore, score) }
        best[key] = Candidate(entry: entry, match: match, score: score, distance: distance)
    }

    /// The best `limit` results: by score, then population, then GeoNames id. Places
    /// are built only for the winners.
    func results(limit: Int) -> [SearchResult] {
        guard limit > 0, !best.isEmpty else { return [] }
        // A typo walk can leave hundreds of candidates for ten rows: find the `limit`-th
        // best score first (a small sorted array, no allocation per candidate), then
        // sort only what reaches it — ties included, for the population tie-break.
        var topScores: [Double] = []
        topScores.reserveCapacity(limit + 1)
        for candidate in best.values {
            if topScores.count == limit, candidate.score <= topScores[limit - 1] { continue }
            let position = topScores.firstIndex { $0 < candidate.score } ?? topScores.count
            topScores.insert(candidate.score, at: position)
            if topScores.count > limit { topScores.removeLast() }
        }
        let floor = topScores[topScores.count - 1]
        let ranked = best.values.filter { $0.score >= floor }.map { candidate in
            (candidate, gazetteer.populationAndID(ofEntry: candidate.entry))
        }.sorted { a, b in
            if a.0.score != b.0.score { return a.0.score > b.0.score }
            if a.1.population != b.1.population { return a.1.population > b.1.population }
            return a.1.id < b.1.id
        }
        return ranked.prefix(limit).compactMap { candidate, _ in
            guard let place = gazetteer.target(of: candidate.entry) else { return nil }
            return SearchResult(
                place: place, matchedName: gazetteer.originalName(of: candidate.entry), match: candidate.match,
                score: candidate.score, distance: candidate.distance)
        }
    }
}

extension Gazetteer {
    /// Population and GeoNames id of an entry's target, without building the place.
    func populationAndID(ofEntry entry: Int) -> (population: Int, id: Int) {
        let target = index.target(entry)
        switch index.kind(entry) {
        case .place:
            guard target < count else { return (0, 0) }
            let base = target * GazetteerFormat.placeStride
            return (Int(places.u32(base + 12)), Int(places.u32(base)))
        case .admin1, .country:
            let place = self.target(of: entry)
            return (place?.population ?? 0, place?.id ?? 0)
        }
    }
}
