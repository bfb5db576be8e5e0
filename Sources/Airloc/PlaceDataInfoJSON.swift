/// `airloc data info --json` (schema airloc.data/1): counts as numbers, null when the
/// file does not say.
public struct PlaceDataInfoJSON: Encodable, Sendable {
    public var schema = "airloc.data/1"
    public var path: String
    public var places: Int
    public var names: Int?
    public var postalCodes: Int?
    public var countries: Int?
    public var admin1: Int?
    public var source: String?
    public var built: String?
    public var attribution: String
    /// True when `--verify` checked every record (a damaged file exits 65 instead).
    public var verified: Bool

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
