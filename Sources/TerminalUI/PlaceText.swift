import Airloc
import Foundation
import Gazetteer
import Geo

/// The shorter answers about places for a person: `reverse`'s place at a coordinate,
/// `popular`'s list and `use`'s choice. Each returns the whole text, lines
/// ended; nothing is printed here.
public struct PlaceText {
    /// Where it is printed.
    public var console: Console

    /// The text for `console`.
    public init(console: Console) { self.console = console }

    /// `airloc reverse`: the place (or, out of reach, the nearest one), then how far, in
    /// which direction, and its local time.
    public func render(_ nearest: NearestPlace, reverse document: ReverseJSON) -> String {
        var text =
            document.withinReach
            ? console.bold(nearest.place.displayName) + "\n"
            : "No place within \(Int(ReverseJSON.reach / 1000)) km; nearest: " + console.bold(nearest.place.displayName)
                + "\n"
        var details = [nearest.relativeDescription]
        if let local = LocalTime(timezone: nearest.place.timezone) {
            details.append("\(local.timezone) \(local.clock) (\(local.shortOffset))")
        }
        text += "  " + details.joined(separator: " · ") + "\n"
        return text
    }

    /// `airloc popular`: each city with its local time.
    public func render(popular document: PopularPlaces.Document) -> String {
        document.places.map { result in
            let name = result.displayName.padding(toLength: 42, withPad: " ", startingAt: 0)
            let time = LocalTime(timezone: result.timezone).map { "\($0.clock)  \($0.shortOffset)" } ?? ""
            return console.bold(name) + " " + console.dim(time) + "\n"
        }.joined()
    }

    /// `airloc use`: what was done with the chosen place.
    public func render(_ place: Place?, chosen outcome: UseJSON.Outcome) -> String {
        switch (outcome, place) {
        case (.cleared, _):
            return "No place chosen any more; the manual location is [location] in the configuration.\n"
        case (.none, _): return "No place chosen. Choose one with 'airloc use PLACE' or 'airloc pick'.\n"
        case (.saved, let place?), (.shown, let place?):
            let verb = outcome == .saved ? "Chosen" : "Chosen place"
            var text = "\(verb): \(console.bold(place.displayName)) (\(place.coordinate))\n"
            if outcome == .saved {
                text += console.dim(
                    "'airloc now' uses it when [location] providers reaches manual (by default: when gpsd has no fix).")
                text += "\n"
            }
            return text
        default: return ""
        }
    }

    /// Places of one name to choose from, numbered from 1, with their population.
    public static func list(_ namesakes: [Place]) -> String {
        namesakes.enumerated().map { index, place in
            "  \(index + 1). \(place.displayName)"
                + (place.population > 0 ? " (pop. \(formatGrouped(place.population)))" : "")
        }.joined(separator: "\n")
    }
}
