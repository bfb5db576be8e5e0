/// The ways a typed postal code may be held by the offline data, finest first, and what
/// each answers for: people write "1011 AB", "SW1A 1AA", "100 00" or "01301", while the
/// data holds the Dutch 4-digit district "1011", the British area "SW", "10000" or "013 01".
///
/// Contract: every form is derived from the normalised code (``PostalCode/normalise(_:)``)
/// and contains only its characters (and spaces); a form with a ``PostalForm/granularity``
/// answers for more than the typed code, and the answer must say so.
public struct PostalForm: Sendable, Equatable {
    /// What to look up.
    public var key: String
    /// True when every code starting with `key` answers (the data holds finer codes than
    /// the part that was kept: "GY1 1AA" for the outward code "GY1").
    public var isPrefix: Bool
    /// What an answer by this form covers when that is more than the typed code ("area
    /// SW", "4-digit district 1011"); nil when it is the code itself in another spelling.
    public var granularity: String?

    /// A form: the key it is found by, whether it is a prefix, what it stands for.
    public init(key: String, isPrefix: Bool = false, granularity: String? = nil) {
        self.key = key
        self.isPrefix = isPrefix
        self.granularity = granularity
    }

    /// Countries whose codes are ZIP codes, with ZIP+4 ("90210-1234").
    static let zipCountries: Set<String> = ["US", "PR", "GU", "VI", "AS", "MP", "MH", "FM", "PW"]
    /// Countries with British-style postcodes (outward code, then inward code).
    static let britishStyle: Set<String> = ["GB", "GG", "JE", "IM"]

    /// The forms of `code` (normalised) for `country`, finest first, without repeats.
    /// `sample` is one code of the country as the data holds it: its spacing is tried.
    /// `spaced` says the country writes its codes with a space somewhere (its pattern or
    /// its data has one): only then is a space insignificant ("90 210" is no US code).
    public static func forms(of code: String, country: String, sample: String?, spaced: Bool) -> [PostalForm] {
        var forms: [PostalForm] = []
        func add(_ form: PostalForm) {
            if !form.key.isEmpty && !forms.contains(where: { $0.key == form.key && $0.isPrefix == form.isPrefix }) {
                forms.append(form)
            }
        }
        let compact = spaced ? code.filter { $0 != " " } : code
        add(PostalForm(key: code))
        add(PostalForm(key: compact))
        // The data's spacing: "01301" as "013 01", "ATD1010" as "ATD 1010".
        if spaced, let sample, let space = sample.firstIndex(of: " "), compact.count == sample.count - 1 {
            let at = sample.distance(from: sample.startIndex, to: space)
            if at > 0 && at < compact.count {
                let split = compact.index(compact.startIndex, offsetBy: at)
                add(PostalForm(key: String(compact[..<split]) + " " + String(compact[split...])))
            }
        }
        if zipCountries.contains(country), let dash = code.firstIndex(of: "-") {
            let zip = String(code[..<dash])
            add(PostalForm(key: zip, granularity: "ZIP code \(zip)"))
        }
        if britishStyle.contains(country) {
            let outward = PostalCode.outward(code, country: "GB")
            if outward != compact {
                add(PostalForm(key: outward, granularity: "outward code \(outward)"))
                add(PostalForm(key: outward + " ", isPrefix: true, granularity: "outward code \(outward)"))
            }
            let area = String(compact.prefix { $0.isLetter })
            if !area.isEmpty && area != compact {
                add(PostalForm(key: area, granularity: "area \(area)"))
            }
        }
        switch country {
        case "NL":
            let district = String(compact.prefix(4))
            if compact.count > 4 && district.allSatisfy(\.isNumber) {
                add(PostalForm(key: district, granularity: "4-digit district \(district)"))
            }
        case "CA", "IE", "MT":
            let first = String(compact.prefix(3))
            if compact.count > 3 {
                let name = ["CA": "forward sortation area", "IE": "routing key", "MT": "locality code"][country]!
                add(PostalForm(key: first, granularity: "\(name) \(first)"))
                add(PostalForm(key: first + " ", isPrefix: true, granularity: "\(name) \(first)"))
            }
        case "PT":
            if let dash = code.firstIndex(of: "-") {
                let area = String(code[..<dash])
                add(PostalForm(key: area + "-", isPrefix: true, granularity: "4-digit area \(area)"))
            }
        default:
            break
        }
        return forms
    }

    /// The shape of a code: every digit as "#", every letter as "@" ("1011 AB" → "#### @@").
    public static func shape(_ code: String) -> String {
        String(code.map { $0.isNumber ? "#" : $0.isLetter ? "@" : $0 })
    }
}
