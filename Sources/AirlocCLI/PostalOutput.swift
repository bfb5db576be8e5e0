import Airloc
import Gazetteer
import Geo
import TerminalUI
import Web

/// How `airloc postal` prints its answer, as text and as JSON (schema airloc.postal/1).
struct PostalOutput {
    var lookup: PostalLookup
    var places: [PostalPlace]
    var failure: WebError?
    var gazetteer: Gazetteer

    func json(report: AirReport?) -> PostalJSON {
        PostalJSON(lookup: lookup, places: places, failure: failure, gazetteer: gazetteer, report: report)
    }

    func text(console: Console) -> String {
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
            details.append(place.source)
            lines.append("    " + console.dim(details.joined(separator: " · ")))
            if let explanation = place.kind?.explanation { lines.append("    " + explanation) }
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
