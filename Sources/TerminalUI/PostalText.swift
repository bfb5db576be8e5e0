import Airloc
import Foundation
import Gazetteer
import Geo

/// `airloc postal` for a person: the places a code belongs to, each with its position,
/// other names, distance from the first, local time and source; and the countries list.
public struct PostalText {
    /// Where it is printed.
    public var console: Console

    /// The text for `console`.
    public init(console: Console) { self.console = console }

    /// `postal`'s text: the places of the code.
    public func render(_ lookup: PostalLookup, places: [PostalPlace], gazetteer: Gazetteer) -> String {
        var lines = [console.bold("\(lookup.country) \(lookup.code)") + " · \(lookup.countryName)"]
        if let granularity = lookup.granularity {
            lines.append(console.dim("answered for the \(granularity): the offline data has no finer codes"))
        }
        for (number, place) in places.enumerated() {
            let json = PostalJSON.placeJSON(place, first: places.first, gazetteer: gazetteer)
            var name = place.placeName
            if !place.admin1.isEmpty {
                name += ", \(place.admin1)" + (place.admin1Code.isEmpty ? "" : " (\(place.admin1Code))")
            }
            lines.append(String(format: "%2d. ", number + 1) + console.bold(name))
            var details = [String(format: "%.4f, %.4f", place.coordinate.latitude, place.coordinate.longitude)]
            if place.coordinateDerived { details.append("position of the town (the data has none)") }
            if !place.acceptableNames.isEmpty {
                details.append("also \(place.acceptableNames.joined(separator: ", "))")
            }
            if let km = json.distanceKm { details.append("\(km) km from the first") }
            if let zone = json.timezone, let local = LocalTime(timezone: zone) {
                details.append("\(zone) \(local.clock) (\(local.shortOffset))")
            }
            details.append(place.source.rawValue)
            lines.append("    " + console.dim(details.joined(separator: " · ")))
            if let explanation = place.kind?.explanation { lines.append("    " + explanation) }
            lines.append("    " + json.openstreetmapUrl)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `postal --countries`: a line per country, its code format and where answers come from.
    public func render(countries: [PostalCountriesJSON.Row]) -> String {
        countries.map { row in
            let name = "\(row.code)  \(row.name)".padding(toLength: 34, withPad: " ", startingAt: 0)
            var text = row.formatDescription ?? (row.format.isEmpty ? "format not in the data" : row.format)
            if let range = row.range { text += " (\(range))" }
            return name + " " + row.answered.rawValue.padding(toLength: 15, withPad: " ", startingAt: 0) + text + "\n"
        }.joined()
    }
}
