import Airloc
import Foundation
import Gazetteer
import Geo

/// `airloc search` for a person: each result with what matched (another name, typos,
/// online), its kind, population, distance and local time.
public struct SearchText {
    /// Where it is printed.
    public var console: Console

    /// The text for `console`.
    public init(console: Console) { self.console = console }

    /// The results, one line each.
    public func render(_ results: [SearchResultJSON], query: String) -> String {
        guard !results.isEmpty else { return "No results for \"\(query)\".\n" }
        var text = ""
        for (number, result) in results.enumerated() {
            var line = console.bold(result.displayName)
            var notes: [String] = []
            if let matched = result.matchedName, SearchKey.fold(matched) != SearchKey.fold(result.name) {
                notes.append("“\(matched)”")
            }
            if result.typos > 0 { notes.append("\(result.typos) typo\(result.typos == 1 ? "" : "s")") }
            if result.source == .online { notes.append("online") }
            if !notes.isEmpty { line += console.dim(" (" + notes.joined(separator: ", ") + ")") }
            var details: [String] = [Place.kind(ofFeature: result.featureCode)]
            if result.population > 0 { details.append("pop. \(formatGrouped(result.population))") }
            if let km = result.distanceKm { details.append("\(formatGrouped(Int(km.rounded()))) km away") }
            if let local = LocalTime(timezone: result.timezone) {
                details.append("\(local.timezone) \(local.clock) (\(local.shortOffset))")
            }
            text +=
                String(format: "%2d. ", number + 1) + line + "\n    " + console.dim(details.joined(separator: " · "))
                + "\n"
        }
        return text
    }
}
