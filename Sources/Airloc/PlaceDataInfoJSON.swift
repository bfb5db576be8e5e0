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
