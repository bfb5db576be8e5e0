import Gazetteer

/// `airloc data info --json` (schema airloc.data/1): counts as numbers, null when the
/// file does not say.
public struct PlaceDataInfoJSON: Encodable, Sendable {
    /// The document's schema.
    public var schema = "airloc.data/1"
    /// The file.
    public var path: String
    /// Places in it.
    public var places: Int
    /// Names (with alternates).
    public var names: Int?
    /// Postal codes.
    public var postalCodes: Int?
    /// Countries.
    public var countries: Int?
    /// Admin-1 regions.
    public var admin1: Int?
    /// Where it came from.
    public var source: String?
    /// When it was built.
    public var built: String?
    /// What it is credited to.
    public var attribution: String
    /// True when `--verify` checked every record (a damaged file exits 65 instead).
    public var verified: Bool

    /// The document.
    public init(
        path: String, places: Int, names: Int?, postalCodes: Int?, countries: Int?, admin1: Int?, source: String?,
        built: String?, attribution: String, verified: Bool
    ) {
        self.path = path
        self.places = places
        self.names = names
        self.postalCodes = postalCodes
        self.countries = countries
        self.admin1 = admin1
        self.source = source
        self.built = built
        self.attribution = attribution
        self.verified = verified
    }
}

extension PlaceDataInfoJSON {
    /// What `gazetteer`'s file says of itself; `verified` when every reference was checked.
    public init(_ gazetteer: Gazetteer, verified: Bool) {
        let meta = gazetteer.metadata
        self.init(
            path: gazetteer.location, places: gazetteer.count, names: meta["names"].flatMap { Int($0) },
            postalCodes: meta["postal_codes"].flatMap { Int($0) }, countries: meta["countries"].flatMap { Int($0) },
            admin1: meta["admin1"].flatMap { Int($0) }, source: meta["source"], built: meta["built"],
            attribution: meta["attribution"] ?? "GeoNames (geonames.org), CC BY 4.0", verified: verified)
    }

    /// `data info` for people (unknown counts as "?").
    public var text: String {
        let count = { (value: Int?) in value.map(String.init) ?? "?" }
        return """
            file:        \(path)
            places:      \(places)   names: \(count(names))   postal codes: \(count(postalCodes))
            countries:   \(count(countries))   admin-1 regions: \(count(admin1))
            source:      \(source ?? "unknown")
            built:       \(built ?? "unknown")
            attribution: \(attribution)


            """
    }
}
