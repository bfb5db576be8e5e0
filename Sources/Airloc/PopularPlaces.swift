import Gazetteer
import Geo

/// The popular cities: what the search sheet lists before anything is typed (`airloc
/// popular`, the picker's empty query), each the most populous place of its name in the
/// place data.
///
/// Contract: the order is the list's; a city the data does not hold is left out.
public enum PopularPlaces {
    /// Seed 000's list, in its order.
    public static let cities = [
        "New York", "Los Angeles", "Chicago", "London", "Paris", "Tokyo", "Berlin", "Toronto", "Sydney", "Dubai",
    ]

    /// The cities as places of `gazetteer`.
    public static func places(in gazetteer: Gazetteer) -> [Place] {
        cities.compactMap { gazetteer.place(named: $0) }
    }

    /// `airloc popular --json`, schema `airloc.popular/1`: the cities as search results.
    public struct Document: Encodable {
        /// The document's schema.
        public var schema = "airloc.popular/1"
        /// The cities found.
        public var places: [SearchResultJSON]

        /// The document of `gazetteer`'s popular places.
        public init(_ gazetteer: Gazetteer) {
            places = PopularPlaces.places(in: gazetteer).map {
                SearchResultJSON(
                    place: $0, match: "curated", typos: 0, matchedName: nil, source: .offline, distance: nil)
            }
        }
    }
}
