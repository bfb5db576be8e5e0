/// The short name inside an official or long form that the data holds only short:
/// "Frankenthal (Pfalz)", "Weiden in der Oberpfalz", "Cottbus - Chóśebuz",
/// "Bozen / Bolzano", "Neustadt an der Weinstraße", "Mâcon-sur-Saône".
///
/// Contract: readings come in the order to try them; each has a non-empty folded
/// ``core`` (``SearchKey``) and, where the long form names where the place is (the part
/// in parentheses, after "in der", "am", "an der", "-sur-" ...), a folded ``hint``. A
/// query with none of these forms gives no reading. The search uses them only when the
/// whole query found nothing: a long form the data does hold is found as it is.
struct OfficialName: Hashable {
    var core: String
    var hint: String?
    /// The countries whose official names use the connector that was found ("sur" →
    /// France, Belgium, ...): a weaker hint, used when ``hint`` names no region.
    var languageCountries: [String] = []

    /// Words that join a name to where it is, in German, French, English, Dutch, Italian
    /// and Spanish official names; the longer ones first ("an der" before "an").
    static let connectors: [(words: [String], countries: [String])] = [
        (["in", "der"], german), (["an", "der"], german), (["ob", "der"], german), (["auf", "der"], german),
        (["vor", "der"], german), (["unter", "der"], german), (["in", "den"], german), (["am"], german),
        (["im"], german), (["an"], german), (["in"], german), (["bei"], german), (["ob"], german),
        (["sur"], french), (["sous"], french), (["en"], french), (["les"], french), (["lez"], french),
        (["pres"], french), (["upon"], english), (["on"], english), (["aan"], dutch), (["op"], dutch),
        (["di"], italian), (["del"], spanish + italian), (["de"], spanish + french),
    ]
    static let german = ["DE", "AT", "CH", "LI", "LU"]
    static let french = ["FR", "BE", "CH", "LU", "CA", "MC"]
    static let english = ["GB", "IE", "US", "CA", "AU", "NZ"]
    static let dutch = ["NL", "BE"]
    static let italian = ["IT", "CH", "SM"]
    static let spanish = [
        "ES", "MX", "AR", "CO", "CL", "PE", "VE", "EC", "GT", "CU", "BO", "DO", "HN", "PY", "SV", "NI", "CR", "PA",
        "UY",
    ]

    static func readings(of query: String) -> [OfficialName] {
        var readings: [OfficialName] = []
        // "Frankenthal (Pfalz)": the name, and where it is in parentheses.
        if let open = query.firstIndex(of: "("), open > query.startIndex {
            let inside = query[query.index(after: open)...].prefix { $0 != ")" }
            readings.append(
                OfficialName(core: SearchKey.fold(String(query[..<open])), hint: SearchKey.fold(String(inside))))
        }
        // Bilingual names: "Cottbus - Chóśebuz", "Bozen / Bolzano": either half.
        for separator in [" - ", " – ", " — ", " / ", "/"] where query.contains(separator) {
            for half in query.components(separatedBy: separator) {
                readings.append(OfficialName(core: SearchKey.fold(half), hint: nil))
            }
        }
        // "Weiden in der Oberpfalz", "Châlons-en-Champagne": the words before the first
        // connector, the rest as the hint. Folding turned the hyphens into spaces.
        let folded = SearchKey.fold(query)
        let words = folded.split(separator: " ").map(String.init)
        search: for start in 1..<max(1, words.count - 1) {
            for connector in connectors where start + connector.words.count < words.count {
                guard Array(words[start..<(start + connector.words.count)]) == connector.words else { continue }
                readings.append(
                    OfficialName(
                        core: words[..<start].joined(separator: " "),
                        hint: words[(start + connector.words.count)...].joined(separator: " "),
                        languageCountries: connector.countries))
                break search
            }
        }
        var seen = Set<OfficialName>()
        return readings.filter { !$0.core.isEmpty && $0.core != folded && seen.insert($0).inserted }
    }
}

extension Gazetteer {
    /// Admin-1 regions whose name holds every word of `hint` ("pfalz" → Rheinland-Pfalz),
    /// or that `hint` names outright (a name or code). Scans the regions' names: used only
    /// when a query found nothing as it was typed.
    func regions(mentioning hint: String) -> Set<UInt16> {
        var found = admin1Regions(named: hint)
        let words = hint.split(separator: " ")
        guard !words.isEmpty else { return found }
        for index in 0..<admin1Count {
            let name = SearchKey.fold(admin1Name(index)).split(separator: " ")
            if words.allSatisfy(name.contains) { found.insert(UInt16(clamping: index)) }
        }
        return found
    }

    /// The official-name fallback of ``search(_:options:)``: the short names inside a
    /// long form, those in the region its hint names ranked first.
    func collectOfficialNames(
        of query: String, countries: Set<UInt16>?, limit: Int, into pool: inout CandidatePool
    ) {
        for reading in OfficialName.readings(of: query) {
            if let hint = reading.hint {
                let regions = regions(mentioning: hint)
                var hinted = self.countries(named: hint)
                // No region or country named: the connector's language says where such
                // names are official ("-sur-": Mâcon in France before Macon, Georgia).
                if regions.isEmpty && hinted.isEmpty {
                    for code in reading.languageCountries {
                        hinted.formUnion(self.countries(named: SearchKey.fold(code)))
                    }
                }
                if let countries { hinted.formIntersection(countries) }
                if !regions.isEmpty || !hinted.isEmpty {
                    var filter = TargetFilter(countries: countries)
                    filter.anyOf.append((hinted, regions))
                    collect(name: reading.core, filter: filter, prefix: false, tier: 2, limit: limit, into: &pool)
                }
            }
            collect(
                name: reading.core, filter: TargetFilter(countries: countries), prefix: false, tier: 1, limit: limit,
                into: &pool)
        }
    }
}
