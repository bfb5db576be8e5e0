import Airloc
import Foundation
import Gazetteer
import Geo
import Web

/// How `airloc postal` prints its answer, as text and as JSON (schema airloc.postal/1).
struct PostalOutput {
    var lookup: PostalLookup
    var places: [PostalPlace]
    var failure: WebError?
    var gazetteer: Gazetteer

    struct JSON: Encodable {
        var schema = "airloc.postal/1"
        var country: String
        var countryName: String
        var code: String
        /// What was looked up offline and what was asked online (GB outward code, ZIP).
        var offlineKey: String
        var onlineCode: String
        var places: [PlaceJSON]
        /// Null when the service was not asked or answered; else what went wrong.
        var onlineError: String?
        /// The air report for the first place (`--air`), schema airloc.report/1.
        var report: ReportJSON?
    }

    struct PlaceJSON: Encodable {
        var placeName: String
        var admin1: String
        var admin1Code: String
        var latitude: Double
        var longitude: Double
        /// "offline", "online" or "offline+online".
        var source: String
        /// True when the source had no coordinates: they are those of the most populous
        /// place of that name in the country.
        var coordinateDerived: Bool
        /// From the first place, when the places differ.
        var distanceKm: Double?
        var timezone: String?
        var utcOffset: String?
        var localTime: String?
        var openstreetmapUrl: String
    }

    func json(report: AirReport?) -> JSON {
        JSON(
            country: lookup.country, countryName: lookup.countryName, code: lookup.code, offlineKey: lookup.key,
            onlineCode: lookup.onlineCode, places: places.map(placeJSON), onlineError: failure?.description,
            report: report.map(ReportJSON.init))
    }

    private func placeJSON(_ place: PostalPlace) -> PlaceJSON {
        let timezone = gazetteer.nearest(to: place.coordinate)?.place.timezone
        let local = timezone.flatMap { LocalTime(timezone: $0) }
        let distance = places.first.map { place.coordinate.distance(to: $0.coordinate) }
        return PlaceJSON(
            placeName: place.placeName, admin1: place.admin1, admin1Code: place.admin1Code,
            latitude: place.coordinate.latitude, longitude: place.coordinate.longitude, source: place.source,
            coordinateDerived: place.coordinateDerived,
            distanceKm: distance.flatMap { $0 < 100 ? nil : ($0 / 100).rounded() / 10 }, timezone: timezone,
            utcOffset: local?.offset, localTime: local?.localDateTime, openstreetmapUrl: Self.mapURL(place.coordinate))
    }

    /// A link to the point on openstreetmap.org (the seed app shows a map).
    static func mapURL(_ coordinate: Coordinate) -> String {
        let lat = String(format: "%.5f", coordinate.latitude)
        let lon = String(format: "%.5f", coordinate.longitude)
        return "https://www.openstreetmap.org/?mlat=\(lat)&mlon=\(lon)#map=13/\(lat)/\(lon)"
    }

    func text(console: Console) -> String {
        var lines = [console.bold("\(lookup.country) \(lookup.code)") + " · \(lookup.countryName)"]
        for (number, place) in places.enumerated() {
            let json = placeJSON(place)
            var name = place.placeName
            if !place.admin1.isEmpty {
                name += ", \(place.admin1)" + (place.admin1Code.isEmpty ? "" : " (\(place.admin1Code))")
            }
            lines.append(String(format: "%2d. ", number + 1) + console.bold(name))
            var details = [String(format: "%.4f, %.4f", place.coordinate.latitude, place.coordinate.longitude)]
            if place.coordinateDerived { details.append("position of the town (the data has none)") }
            if let km = json.distanceKm { details.append("\(km) km from the first") }
            if let zone = json.timezone, let local = LocalTime(timezone: zone) {
                details.append("\(zone) \(local.clock) (\(local.shortOffset))")
            }
            details.append(place.source)
            lines.append("    " + console.dim(details.joined(separator: " · ")))
            lines.append("    " + json.openstreetmapUrl)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// `airloc postal --countries`: what each country's codes look like and where answers
/// come from.
enum PostalCountries {
    struct Row: Encodable {
        var code: String
        var name: String
        var format: String
        var formatDescription: String?
        var offlineCodes: Int
        var range: String?
        /// "offline", "offline+online", "online".
        var answered: String
    }

    static func rows(gazetteer: Gazetteer) -> [Row] {
        var codes = Set(Zippopotam.countries)
        for code in allCountryCodes(gazetteer) where (gazetteer.postalFormat(countryCode: code)?.offlineCount ?? 0) > 0
        {
            codes.insert(code)
        }
        return codes.sorted().map { code in
            let format = gazetteer.postalFormat(countryCode: code)
            let offline = format?.offlineCount ?? 0
            let online = Zippopotam.countries.contains(code)
            return Row(
                code: code, name: gazetteer.countryName(code: code) ?? code, format: format?.format ?? "",
                formatDescription: format.flatMap { PostalCode.describe(format: $0.format) }, offlineCodes: offline,
                range: format.flatMap { f in f.first.map { "\($0)–\(f.last ?? $0)" } },
                answered: offline > 0 ? (online ? "offline+online" : "offline") : "online")
        }
    }

    static func allCountryCodes(_ gazetteer: Gazetteer) -> [String] { gazetteer.countryCodes }

    static func print(gazetteer: Gazetteer, json: Bool, console: Console) {
        let rows = rows(gazetteer: gazetteer)
        if json {
            struct Document: Encodable {
                var schema = "airloc.postal-countries/1"
                var countries: [Row]
            }
            console.out(JSONDocument.encode(Document(countries: rows)))
            return
        }
        for row in rows {
            let name = "\(row.code)  \(row.name)".padding(toLength: 34, withPad: " ", startingAt: 0)
            var text = row.formatDescription ?? (row.format.isEmpty ? "format not in the data" : row.format)
            if let range = row.range { text += " (\(range))" }
            console.out(name + " " + row.answered.padding(toLength: 15, withPad: " ", startingAt: 0) + text + "\n")
        }
    }
}
