import AirQuality
import Airloc
import Foundation
import Gazetteer
import Geo

/// The `airloc now --json` document, schema `airloc.report/1` (docs/json-schema.md).
///
/// Contract: keys are snake_case and sorted; a key whose value is unknown is null, never
/// absent, so `jq` paths stay valid; numbers are plain JSON numbers in SI units (metres,
/// µg/m³, seconds). No colour, no emoji. New keys may be added within `/1`; renaming or
/// removing one bumps the schema.
struct ReportJSON: Encodable {
    static let schema = "airloc.report/1"

    var schema = ReportJSON.schema
    var generatedAt: String
    var location: LocationJSON
    var providers: [AttemptJSON]
    var place: PlaceJSON?
    var airQuality: Air?
    /// Null when the air-quality request failed (pollen comes with it).
    var pollen: PollenJSON?
    var climate: ClimateJSON
    /// What became of each part: "ok", "cached", "stale", "unavailable", "failed", "skipped".
    var parts: Parts
    /// The unit the text report uses ("metric" / "imperial"); JSON values stay in °C.
    var units: String
    /// The index the text report leads with: "us" or "eu".
    var scale: String
    /// HTTP requests this report sent (0 when the cache answered).
    var httpRequests: Int
    var sentCoordinate: CoordinateJSON
    var attribution: String
    var sources: [String]
    var warnings: [String]
    var errors: [ErrorJSON]

    struct CoordinateJSON: Encodable {
        var latitude: Double
        var longitude: Double
    }

    struct Air: Encodable {
        var usAqi: Int
        /// "open-meteo", or "computed" (EPA table, from the concentrations).
        var usAqiSource: String
        var category: String
        var categoryName: String
        var color: String
        var description: String
        var advice: String
        var dominantPollutant: String?
        var time: String
        var timezone: String
        var pollutants: [PollutantJSON]
        var europeanAqi: EuropeanJSON?
        /// Seconds since the answer was fetched when it came from the cache; null when fresh.
        var cachedAgeS: Double?
        /// True when a cached answer stands in for a failed fetch.
        var stale: Bool
    }

    struct Parts: Encodable {
        var airQuality = "failed"
        var pollen = "failed"
        var climate = "skipped"
    }

    struct EuropeanJSON: Encodable {
        var index: Int
        var category: String
        var categoryName: String
        var color: String
    }

    struct ClimateJSON: Encodable {
        var available: Bool
        /// "ok", "unavailable", "failed" or "skipped".
        var status: String
        var reason: String?
        var recentMeanC: Double?
        var baselineMeanC: Double?
        var differenceC: Double?
        var baselinePeriod = Climatology.period
        var days: [Day]

        struct Day: Encodable {
            var date: String
            var meanC: Double
            var normalC: Double
        }

        init(_ outcome: ClimateOutcome) {
            available = outcome.trend != nil
            days = []
            switch outcome {
            case .ok(let trend):
                status = "ok"
                recentMeanC = Self.round(trend.recentMean)
                baselineMeanC = Self.round(trend.baselineMean)
                differenceC = Self.round(trend.difference)
                days = zip(trend.days, trend.normals).map {
                    Day(date: $0.date, meanC: Self.round($0.meanCelsius), normalC: Self.round($1))
                }
            case .unavailable(let why): (status, reason) = ("unavailable", why)
            case .failed(let error): (status, reason) = ("failed", error.description)
            case .notRequested: status = "skipped"
            }
        }

        /// Two decimals: the archive has one; means need no more than one more.
        static func round(_ value: Double) -> Double { (value * 100).rounded() / 100 }
    }

    struct PollutantJSON: Encodable {
        var id: String
        var name: String
        var value: Double
        var unit: String
        var aqi: Int?
        var category: String?
        /// Where `aqi` comes from: "open-meteo" or "computed"; null without an index.
        var aqiSource: String?
    }

    struct PollenJSON: Encodable {
        /// False outside Europe or out of season: every species null, never zero.
        var available: Bool
        var scale = "none 0, low 1-10, moderate 11-50, high 51-200 (trees) / 51-100 (grass, weeds), very high above"
        var groups: [Group]
        var species: [Species]

        struct Group: Encodable {
            var id: String
            var level: String
            var dominantSpecies: String
            var value: Double
        }

        struct Species: Encodable {
            var id: String
            var name: String
            var group: String
            var value: Double
            var unit = "grains/m3"
            var level: String
        }

        init(_ pollen: PollenReading) {
            available = pollen.isAvailable
            groups = PollenGroup.allCases.compactMap { group in
                pollen.level(of: group).map {
                    Group(
                        id: group.rawValue, level: $0.level.rawValue, dominantSpecies: $0.species.rawValue,
                        value: $0.value)
                }
            }
            species = PollenSpecies.allCases.compactMap { species in
                pollen.species[species].map {
                    Species(
                        id: species.rawValue, name: species.name, group: species.group.rawValue, value: $0,
                        level: species.level($0).rawValue)
                }
            }
        }
    }

    struct ErrorJSON: Encodable {
        var part: String
        var service: String?
        var message: String
        var retryable: Bool
    }

    init(_ report: AirReport) {
        let iso = ISO8601DateFormatter()
        let fix = report.fix
        generatedAt = iso.string(from: report.generatedAt)
        location = LocationJSON(
            fix: fix, provider: report.provider, authorizedAccuracy: report.accuracy, at: report.generatedAt)
        providers = report.attempts.map(AttemptJSON.init)
        place = report.place.map { PlaceJSON($0) }
        sentCoordinate = CoordinateJSON(
            latitude: report.sentCoordinate.latitude, longitude: report.sentCoordinate.longitude)
        var sources = ["GeoNames (CC BY 4.0)"]
        var errors: [ErrorJSON] = []
        var parts = Parts()
        climate = ClimateJSON(report.data.climate)
        parts.climate = climate.status
        switch report.data.climate {
        case .ok: sources.append("Open-Meteo.com, ERA5 (CC BY 4.0)")
        case .failed(let error):
            errors.append(
                ErrorJSON(
                    part: "climate", service: OpenMeteoArchive.serviceName, message: error.description,
                    retryable: error.isRetryable))
        case .unavailable, .notRequested: break
        }
        units = report.units.rawValue
        scale = report.scale.rawValue
        httpRequests = report.data.requests
        attribution = OpenMeteoAirQuality.attribution
        switch report.air {
        case .success(let reading):
            sources.insert(OpenMeteoAirQuality.attribution + " (CC BY 4.0)", at: 0)
            pollen = PollenJSON(reading.pollen)
            parts.airQuality = report.data.airIsStale ? "stale" : (report.data.airCachedAge == nil ? "ok" : "cached")
            parts.pollen = reading.pollen.isAvailable ? "ok" : "unavailable"
            let category = reading.category
            airQuality = Air(
                usAqi: reading.usAQI, usAqiSource: reading.usAQIComputed ? "computed" : "open-meteo",
                category: category.rawValue, categoryName: category.name, color: category.color,
                description: category.description, advice: category.advice,
                dominantPollutant: reading.dominantPollutant?.rawValue, time: reading.time,
                timezone: reading.timezone,
                pollutants: Pollutant.allCases.compactMap { pollutant in
                    guard let value = reading.concentrations[pollutant] else { return nil }
                    let aqi = reading.subIndices[pollutant]
                    return PollutantJSON(
                        id: pollutant.rawValue, name: pollutant.name, value: value, unit: "ug/m3", aqi: aqi,
                        category: aqi.map { AQICategory(aqi: $0).rawValue },
                        aqiSource: aqi == nil ? nil : (reading.computed.contains(pollutant) ? "computed" : "open-meteo")
                    )
                },
                europeanAqi: reading.europeanAQI.map { index in
                    let band = EuropeanAQICategory(index: index)
                    return EuropeanJSON(
                        index: index, category: band.rawValue, categoryName: band.name, color: band.color)
                },
                cachedAgeS: report.data.airCachedAge.map { ($0 * 10).rounded() / 10 }, stale: report.data.airIsStale)
        case .failure(let error):
            airQuality = nil
            pollen = nil
            var service: String? = OpenMeteoAirQuality.serviceName
            if case .web(let web) = error { service = web.service }
            errors.append(
                ErrorJSON(
                    part: "air_quality", service: service, message: error.description, retryable: error.isRetryable))
        }
        self.parts = parts
        self.sources = sources
        self.warnings = report.warnings
        self.errors = errors
    }

    /// Encodes with explicit nulls (see the contract) and sorted keys.
    func encoded() -> String { JSONDocument.encode(self) }
}
