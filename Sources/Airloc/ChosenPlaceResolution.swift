import Foundation
import Gazetteer
import Geo
import Settings

/// A chosen place as the place data knows it: `airloc use` saves and shows these, and any
/// program choosing a place for the user reads them the same way.
extension ChosenPlace {
    /// The full place record of a saved choice (region, time zone), from the place data;
    /// a coordinate the user gave takes them from the place nearest to it.
    public func resolved(in gazetteer: Gazetteer) -> Place {
        if id != 0, let place = gazetteer.place(id: id) { return place }
        var place = self.place
        if let near = gazetteer.nearest(to: coordinate)?.place {
            place.timezone = near.timezone
            place.admin1 = near.admin1
            place.country = near.country
        }
        return place
    }

    /// A point to be saved as given (id 0), named after the place it is in (within 1 km)
    /// or near ("3.2 km NE of Potsdam").
    public static func point(_ coordinate: Coordinate, in gazetteer: Gazetteer) -> Place {
        let near = gazetteer.locality(for: coordinate)
        return Place(
            id: 0, name: near.map { $0.distance < 1000 ? $0.place.name : $0.relativeDescription } ?? "\(coordinate)",
            coordinate: coordinate, admin1: near?.place.admin1 ?? "", country: near?.place.country ?? "",
            countryCode: near?.place.countryCode ?? "", timezone: near?.place.timezone ?? "")
    }
}

extension Namesakes {
    /// The namesakes that make search `results` ambiguous: exact matches of the first
    /// result's name, by the rule of ``ambiguous(_:)``.
    public static func among(_ results: [SearchResult]) -> [Place] {
        guard let first = results.first, first.match == .exact else { return [] }
        let key = SearchKey.fold(first.matchedName)
        return ambiguous(results.filter { $0.match == .exact && SearchKey.fold($0.matchedName) == key }.map(\.place))
    }
}

extension Settings {
    /// Where search ranks namesakes first when no point is given: the chosen place, else
    /// the configured manual coordinates.
    public var searchCentre: Coordinate? {
        if let chosen = chosenPlace { return chosen.coordinate }
        guard let lat = manualLatitude, let lon = manualLongitude else { return nil }
        return try? Coordinate(latitude: lat, longitude: lon)
    }
}
