import Foundation
import Geo

/// Finding a place by the name a person writes in a configuration file
/// (`[location] place = Berlin`, `place = Paris, FR`, `place = Portland, Oregon`).
///
/// Contract: case, accents and surrounding spaces do not matter; an optional qualifier
/// after a comma is matched against the country code, the country name or the admin-1
/// name; among equal names the most populous place wins, so "Paris" is the French
/// capital. Returns nil when nothing has that exact name — no guessing, because a
/// configured location must not silently become a different town. (Typo-tolerant search
/// is `airloc search`.)
extension Gazetteer {
    public func place(named text: String) -> Place? {
        let parts = text.split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first, !first.isEmpty else { return nil }
        let name = Self.fold(first)
        let qualifier = parts.count > 1 ? Self.fold(parts[1]) : nil
        var best: Place?
        for index in 0..<count {
            let candidateName = self.name(at: index)
            // Cheap first: folding 235,000 names would dominate; a byte-length window
            // (accents add bytes, never remove many) rejects nearly all of them.
            guard candidateName.utf8.count >= name.utf8.count / 2, candidateName.utf8.count <= name.utf8.count * 3,
                Self.fold(candidateName) == name
            else { continue }
            let candidate = place(at: index)
            if let qualifier {
                let matches = [candidate.countryCode, candidate.country, candidate.admin1].map(Self.fold)
                guard matches.contains(qualifier) else { continue }
            }
            if best == nil || candidate.population > best!.population { best = candidate }
        }
        return best
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .trimmingCharacters(in: .whitespaces)
    }
}
