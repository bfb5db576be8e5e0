import Foundation
import Geo

/// Finding a place by the name a person writes in a configuration file
/// (`[location] place = Berlin`, `place = Paris, FR`, `place = Portland, Oregon`).
///
/// Contract: case, accents and punctuation do not matter (``SearchKey``); any of the
/// place's names counts ("München" is Munich); an optional qualifier after a comma is
/// matched against the country (code or name) or the admin-1 region (code or name);
/// among equal names the most populous place wins, so "Paris" is the French capital.
/// Returns nil when nothing has that exact name — no guessing, because a configured
/// location must not silently become a different town. (Typo-tolerant search is
/// ``search(_:options:)``.)
extension Gazetteer {
    /// The place `text` names best (``places(named:)``'s first), or nil.
    public func place(named text: String) -> Place? { places(named: text).first }

    /// Every place with that exact name (and qualifier), the most populous first.
    public func places(named text: String) -> [Place] {
        let parts = text.split(separator: ",", maxSplits: 1).map { SearchKey.fold(String($0)) }
        guard let name = parts.first, !name.isEmpty else { return [] }
        var filter = TargetFilter()
        if parts.count > 1 {
            let qualifier = parts[1]
            filter.anyOf = [(countries(named: qualifier), admin1Regions(named: qualifier))]
        }
        let key = Array(name.utf8)
        var found: [(population: Int, target: Int)] = []
        for entry in index.exactRange(key, in: index.prefixRange(key))
        where index.kind(entry) == .place && filter.admits(entry, in: self) {
            let target = index.target(entry)
            guard target < count, !found.contains(where: { $0.target == target }) else { continue }
            found.append((self.population(at: target), target))
        }
        // The most populous first; among equals the first in the file, as before.
        return found.enumerated().sorted {
            $0.element.population != $1.element.population
                ? $0.element.population > $1.element.population : $0.offset < $1.offset
        }.map { place(at: $0.element.target) }
    }
}
