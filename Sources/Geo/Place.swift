/// A populated place, region or country a user can name: the result of a search, a
/// reverse lookup or a postal-code lookup.
///
/// Contract: `name` and `coordinate` are always present; `admin1`, `country` and the rest
/// may be empty strings or nil when the data has none. ``displayName`` is the seed app's
/// "Name, Admin1, Country" with empty parts left out.
public struct Place: Sendable, Hashable, Codable {
    /// GeoNames id when known (0 for places that have none, e.g. a manual coordinate).
    public var id: Int
    /// The place's own name ("Berlin").
    public var name: String
    /// Where its centre is.
    public var coordinate: Coordinate
    /// First-level administrative division (state, Land, region); "" when unknown.
    public var admin1: String
    /// English country name; "" when unknown.
    public var country: String
    /// ISO 3166-1 alpha-2, upper case; "" when unknown.
    public var countryCode: String
    /// IANA time-zone id; "" when unknown.
    public var timezone: String
    /// Inhabitants as GeoNames counts them (0 when unknown).
    public var population: Int
    /// GeoNames feature code (PPL, PPLA, PPLC, ADM1, PCLI, ...); "" when unknown.
    public var featureCode: String

    /// A place as the gazetteer holds it.
    public init(
        id: Int, name: String, coordinate: Coordinate, admin1: String = "", country: String = "",
        countryCode: String = "", timezone: String = "", population: Int = 0, featureCode: String = ""
    ) {
        self.id = id
        self.name = name
        self.coordinate = coordinate
        self.admin1 = admin1
        self.country = country
        self.countryCode = countryCode
        self.timezone = timezone
        self.population = population
        self.featureCode = featureCode
    }

    /// "Berlin, Land Berlin, Germany"; empty parts are left out ("Monaco, Monaco").
    public var displayName: String {
        [name, admin1, country].filter { !$0.isEmpty }.joined(separator: ", ")
    }
}

extension Place {
    /// What kind of place a GeoNames feature code names, in one word: country, region,
    /// capital or place.
    public static func kind(ofFeature featureCode: String) -> String {
        switch featureCode {
        case "PCLI", "PCL", "PCLD", "PCLF", "PCLS", "PCLIX": return "country"
        case "ADM1": return "region"
        case "PPLC": return "capital"
        default: return "place"
        }
    }
}
