import Foundation
import Gazetteer
import Geo
import Web

/// `airloc postal --json` (schema airloc.postal/1, docs/json-schema.md): the places a
/// postal code belongs to, where each came from, and the `--air` report of the first.
public struct PostalJSON: Encodable {
    public var schema = "airloc.postal/1"
    public var country: String
    public var countryName: String
    public var code: String
    /// What was looked up offline and what was asked online (GB outward code, ZIP).
    public var offlineKey: String
    public var onlineCode: String
    /// What the answer covers when that is more than the code: "area SW", "4-digit
    /// district 1011", "outward code GY1", "ZIP code 90210"; null when it is the code.
    public var granularity: String?
    public var places: [PlaceJSON]
    /// Null when the service was not asked or answered; else what went wrong.
    public var onlineError: String?
    /// The air report for the first place (`--air`), schema airloc.report/1.
    public var report: ReportJSON?

    public struct PlaceJSON: Encodable, Sendable {
        public var placeName: String
        public var admin1: String
        public var admin1Code: String
        public var latitude: Double
        public var longitude: Double
        /// "offline", "online" or "offline+online".
        public var source: String
        /// True when the source had no coordinates: they are those of the most populous
        /// place of that name in the country.
        public var coordinateDerived: Bool
        /// What the code addresses where the data says (US ZIP codes: "standard",
        /// "unique", "po_box", "military"); null elsewhere.
        public var type: String?
        /// Other names the post accepts for the code; empty when none are known.
        public var acceptableNames: [String]
        /// From the first place, when the places differ.
        public var distanceKm: Double?
        public var timezone: String?
        public var utcOffset: String?
        public var localTime: String?
        public var openstreetmapUrl: String
    }

    /// The document for a search's answer (and the `--air` report of its first place).
    public init(
        lookup: PostalLookup, places: [PostalPlace], failure: WebError?, gazetteer: Gazetteer, report: AirReport?
    ) {
        country = lookup.country
        countryName = lookup.countryName
        code = lookup.code
        offlineKey = lookup.key
        onlineCode = lookup.onlineCode
        granularity = lookup.granularity
        self.places = places.map { Self.placeJSON($0, first: places.first, gazetteer: gazetteer) }
        onlineError = failure?.description
        self.report = report.map(ReportJSON.init)
    }

    public static func placeJSON(_ place: PostalPlace, first: PostalPlace?, gazetteer: Gazetteer) -> PlaceJSON {
        let timezone = gazetteer.nearest(to: place.coordinate)?.place.timezone
        let local = timezone.flatMap { LocalTime(timezone: $0) }
        let distance = first.map { place.coordinate.distance(to: $0.coordinate) }
        return PlaceJSON(
            placeName: place.placeName, admin1: place.admin1, admin1Code: place.admin1Code,
            latitude: place.coordinate.latitude, longitude: place.coordinate.longitude, source: place.source,
            coordinateDerived: place.coordinateDerived, type: place.kind?.rawValue,
            acceptableNames: place.acceptableNames,
            distanceKm: distance.flatMap { $0 < 100 ? nil : ($0 / 100).rounded() / 10 }, timezone: timezone,
            utcOffset: local?.offset, localTime: local?.localDateTime, openstreetmapUrl: Self.mapURL(place.coordinate))
    }

    /// A link to the point on openstreetmap.org (the seed app shows a map).
    public static func mapURL(_ coordinate: Coordinate) -> String {
        let lat = String(format: "%.5f", coordinate.latitude)
        let lon = String(format: "%.5f", coordinate.longitude)
        return "https://www.openstreetmap.org/?mlat=\(lat)&mlon=\(lon)#map=13/\(lat)/\(lon)"
    }
}
