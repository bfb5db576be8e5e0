import Foundation
import Gazetteer
import Geo
import Settings
import Web

/// "Which places does this postal code belong to": the offline data first, Zippopotam.us
/// where it covers the country and the offline data has nothing (or when asked), the two
/// merged so a place both know appears once.
///
/// Contract: a code is checked against its country's format before anything is looked up
/// or sent; with offline answers a failed service is a warning (``PostalAnswer/failure``),
/// without any it is the error.
public enum PostalSearch {
    /// Where to look.
    public enum Sources: Sendable {
        /// Offline, and online only when offline has nothing.
        case automatic
        /// Offline and online.
        case both
        case offlineOnly
    }

    /// One argument as `airloc postal` takes two: the country (a code, or a name of several
    /// words: "United States 90210"), then the code (which may hold a space: "GB SW1A 1AA");
    /// nil without both.
    public static func split(_ query: String, gazetteer: Gazetteer) -> (country: String, code: String)? {
        let words = query.split(whereSeparator: { $0 == " " || $0 == ":" }).map(String.init)
        guard words.count >= 2 else { return nil }
        let split =
            (1..<words.count).first { gazetteer.countryCode(named: words[0..<$0].joined(separator: " ")) != nil } ?? 1
        return (words[..<split].joined(separator: " "), words[split...].joined(separator: " "))
    }

    /// The places of a postal code: offline where the gazetteer knows the country, else online.
    public static func places(
        country: String, code: String, sources: Sources, gazetteer: Gazetteer, settings: Settings,
        transport: any HTTPTransport = NetworkTransport()
    ) async throws(PostalSearchError) -> PostalAnswer {
        var lookup = try PostalLookup(country: country, code: code, gazetteer: gazetteer)
        // Every spelling and coarser part the data may hold, finest first; only a code the
        // data does not hold must pass the country's format check (the data's own codes do
        // not always match GeoNames' regex: Dutch districts, Czech codes without a space).
        var offline: [PostalPlace] = []
        for form in lookup.forms {
            offline =
                form.isPrefix
                ? gazetteer.postalPlaces(countryCode: lookup.country, prefix: form.key)
                : gazetteer.postalPlaces(countryCode: lookup.country, code: form.key)
            if !offline.isEmpty {
                lookup.key = form.key
                lookup.granularity = form.granularity
                break
            }
        }
        if offline.isEmpty { try lookup.checkFormat() }
        var online: [PostalPlace] = []
        var failure: WebError?
        let coveredOnline = Zippopotam.countries.contains(lookup.country)
        // Online also when it knows the code more finely than the offline answer (GB:
        // outward code "SW1A" where the data has only the area "SW").
        let finerOnline = lookup.onlineCode.filter { $0 != " " }.count > lookup.key.filter { $0 != " " }.count
        let askOnline =
            coveredOnline
            && (sources == .both || (sources == .automatic && (offline.isEmpty || finerOnline)))
        if askOnline {
            let service = Zippopotam(
                base: settings.postalURL,
                client: HTTPClient(timeout: Settings.milliseconds(settings.serviceTimeout), transport: transport))
            do { online = try await service.places(countryCode: lookup.country, code: lookup.onlineCode) } catch {
                failure = error
            }
        }
        if finerOnline && !online.isEmpty {
            // The service knew the code more finely: the coarse offline answer steps aside.
            (offline, lookup.key, lookup.granularity) = ([], lookup.code, nil)
        }
        let places = PostalPlace.merge(offline: offline, online: online)
        guard !places.isEmpty else {
            if let failure { throw .serviceFailed(failure) }
            throw .noPlace(lookup: lookup, coveredOnline: coveredOnline, askedOnline: askOnline)
        }
        return PostalAnswer(lookup: lookup, places: places, failure: failure)
    }
}

/// What a postal search found.
public struct PostalAnswer: Sendable {
    /// What was looked up.
    public var lookup: PostalLookup
    /// Offline places first, then online ones not already among them.
    public var places: [PostalPlace]
    /// The online service's failure when offline answers stand in.
    public var failure: WebError?

    /// Where the report for this code is made: its first place, as a fix no better than a
    /// postal area (5 km), named after the code.
    public var fix: Fix? {
        guard let first = places.first else { return nil }
        return Fix(
            coordinate: first.coordinate, source: .manual, horizontalAccuracy: 5000,
            accuracySource: "postal code \(lookup.country) \(first.code)")
    }
}

/// Why a postal search has no answer.
public enum PostalSearchError: Error, Sendable {
    /// No country of that code or name.
    case unknownCountry(String)
    /// The code does not have the country's form: what is wrong, and the country's format
    /// when the offline data describes it (``PostalLookup/explain(_:country:format:otherwise:)``
    /// puts it in words).
    case badCode(PostalCode.Problem, country: String, format: PostalFormat?)
    /// No place has that code, offline or (when asked) online.
    case noPlace(lookup: PostalLookup, coveredOnline: Bool, askedOnline: Bool)
    /// The service failed and the offline data had nothing.
    case serviceFailed(WebError)
}

/// A country and code as typed, checked and normalised.
public struct PostalLookup: Sendable {
    /// ISO 3166 alpha-2.
    public var country: String
    /// The country's name.
    public var countryName: String
    /// The normalised code as the user gave it ("SW1A 1AA").
    public var code: String
    /// The form the offline data answered with ("1011" for "1011 AB"); the typed code
    /// until then.
    public var key: String
    /// What the offline answer covers when that is more than the code ("area SW",
    /// "4-digit district 1011"); nil when it is the code itself.
    public var granularity: String?
    /// What Zippopotam.us is asked for (GB outward code, ...).
    public var onlineCode: String
    /// The forms the offline data is searched with, finest first.
    public var forms: [PostalForm]
    var format: PostalFormat?

    /// Checks that `typed` can be a code at all (characters, length); the country's
    /// format is checked only when the offline data does not hold it (``checkFormat()``).
    public init(country text: String, code typed: String, gazetteer: Gazetteer) throws(PostalSearchError) {
        guard let country = gazetteer.countryCode(named: text) else { throw .unknownCountry(String(text.prefix(40))) }
        self.country = country
        countryName = gazetteer.countryName(code: country) ?? country
        let format = gazetteer.postalFormat(countryCode: country)
        self.format = format
        switch PostalCode.check(typed, regex: "", country: country) {
        case .success(let code):
            self.code = code
        case .failure(let problem):
            throw .badCode(problem, country: country, format: format)
        }
        key = code
        onlineCode = PostalCode.outward(code, country: country)
        let spaced = [format?.regex, format?.format, format?.first].contains {
            $0?.contains(" ") == true || $0?.contains(#"\s"#) == true
        }
        forms = PostalForm.forms(of: code, country: country, sample: format?.first, spaced: spaced)
    }

    /// Throws ``PostalSearchError/badCode(_:)`` unless the code has a form the country
    /// uses: GeoNames' pattern, a first part where services know only that, or the shape
    /// of the codes in the offline data.
    public func checkFormat() throws(PostalSearchError) {
        let regex = format?.regex ?? ""
        if case .failure(let problem) = PostalCode.check(code, regex: regex, country: country) {
            let shapes = [format?.first, format?.last].compactMap { $0.map(PostalForm.shape) }
            let spellings = forms.filter { $0.granularity == nil }.map { PostalForm.shape($0.key) }
            if spellings.contains(where: shapes.contains) { return }
            throw .badCode(problem, country: country, format: format)
        }
    }

    /// "US codes are 5 digits, or #####-#### (00501–99950 in the offline data)"; where the
    /// data describes no format, `otherwise` (where the caller's user can look it up).
    public static func explain(
        _ problem: PostalCode.Problem, country: String, format: PostalFormat?,
        otherwise: String = "the offline data describes no format for it"
    ) -> String {
        var expected = otherwise
        if let format, let described = PostalCode.describe(format: format.format) {
            expected = "\(country) codes are \(described)"
        }
        if let first = format?.first, let last = format?.last { expected += " (\(first)–\(last) in the offline data)" }
        switch problem {
        case .empty: return "the postal code is empty; \(expected)"
        case .tooLong(let length):
            return "a postal code has at most \(PostalCode.maximumLength) characters, this one \(length); \(expected)"
        case .characters(let bad):
            return
                "a postal code has only letters, digits, spaces and hyphens, not \(String(reflecting: bad)); \(expected)"
        case .format: return "not a valid \(country) postal code: \(expected)"
        }
    }
}

extension PostalPlace {
    /// Offline places first; an online place that is the same (same name, within 5 km)
    /// marks its offline twin "offline+online" instead of appearing twice.
    public static func merge(offline: [PostalPlace], online: [PostalPlace]) -> [PostalPlace] {
        var merged = offline
        for place in online {
            if let twin = merged.firstIndex(where: {
                $0.source == .offline && $0.placeName == place.placeName
                    && $0.coordinate.distance(to: place.coordinate) < 5000
            }) {
                merged[twin].source = .both
            } else {
                merged.append(place)
            }
        }
        return merged
    }

    /// As a ``Place``: its name, region and country, with the time zone of the place
    /// nearest to it.
    public func place(in gazetteer: Gazetteer) -> Place {
        Place(
            id: 0, name: placeName, coordinate: coordinate, admin1: admin1,
            country: gazetteer.countryName(code: countryCode) ?? countryCode, countryCode: countryCode,
            timezone: gazetteer.nearest(to: coordinate)?.place.timezone ?? "", featureCode: "")
    }
}
