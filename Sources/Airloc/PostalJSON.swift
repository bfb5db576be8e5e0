import Foundation
import Gazetteer
import Geo
import Web

/// `airloc postal --json` (schema airloc.postal/1, docs/json-schema.md): the places a
/// postal code belongs to, where each came from, and the `--air` report of the first.
public struct PostalJSON: Encodable {
    /// The document's schema.
    public var schema = "airloc.postal/1"
    /// ISO 3166 alpha-2.
    public var country: String
    /// The country's name.
    public var countryName: String
    /// The code as normalised.
    public var code: String
    /// What was looked up offline and what was asked online (GB outward code, ZIP).
    public var offlineKey: String
    /// The code as sent to the online service.
    public var onlineCode: String
    /// What the answer covers when that is more than the code: "area SW", "4-digit
    /// district 1011", "outward code GY1", "ZIP code 90210"; null when it is the code.
    public var granularity: String?
    /// The places of the code.
    public var places: [PlaceJSON]
    /// Null when the service was not asked or answered; else what went wrong.
    public var onlineError: String?
    /// The air report for the first place (`--air`), schema airloc.report/1.
    public var report: ReportJSON?

    /// One place of a code.
    public struct PlaceJSON: Encodable, Sendable {
        /// Its name.
        public var placeName: String
        /// Its admin-1 region.
        public var admin1: String
        /// The region's code.
        public var admin1Code: String
        /// Degrees north.
        public var latitude: Double
        /// Degrees east.
        public var longitude: Double
        /// Where it came from.
        public var source: AnswerSource
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
        /// Its IANA time zone, when known.
        public var timezone: String?
        /// Its UTC offset now ("+01:00").
        public var utcOffset: String?
        /// The time there now.
        public var localTime: String?
        /// A link to it on OpenStreetMap.
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

    /// The document's place of `place`.
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
