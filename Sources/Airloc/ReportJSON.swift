import AirQuality
import Foundation
import Gazetteer
import Geo

/// The `airloc now --json` document, schema `airloc.report/1` (docs/json-schema.md).
///
/// Contract: keys are snake_case and sorted; a key whose value is unknown is null, never
/// absent, so `jq` paths stay valid; numbers are plain JSON numbers in SI units (metres,
/// µg/m³, seconds). No colour, no emoji. New keys may be added within `/1`; renaming or
/// removing one bumps the schema.
public struct ReportJSON: Encodable {
    /// The document's schema.
    public static let schema = "airloc.report/1"

    /// `airloc.report/1`.
    public var schema = ReportJSON.schema
    /// When the report was made (ISO 8601 UTC).
    public var generatedAt: String
    /// Where the device is.
    public var location: LocationJSON
    /// Each provider tried, in order.
    public var providers: [AttemptJSON]
    /// The place the position is in, when the gazetteer knows one.
    public var place: PlaceJSON?
    /// The air quality; null when its request failed.
    public var airQuality: Air?
    /// Null when the air-quality request failed (pollen comes with it).
    public var pollen: PollenJSON?
    /// The climate trend, or why there is none.
    public var climate: ClimateJSON
    /// What became of each part: "ok", "cached", "stale", "unavailable", "failed", "skipped".
    public var parts: Parts
    /// The unit the text report uses ("metric" / "imperial"); JSON values stay in °C.
    public var units: String
    /// The index the text report leads with: "us" or "eu".
    public var scale: String
    /// HTTP requests this report sent (0 when the cache answered).
    public var httpRequests: Int
    /// The coordinate sent to the services (rounded to `outbound-precision`).
    public var sentCoordinate: CoordinateJSON
    /// What the data is credited to.
    public var attribution: String
    /// The services asked, by name and URL.
    public var sources: [String]
    /// What a user should know (a stale cache standing in).
    public var warnings: [String]
    /// Each part that failed, required or not.
    public var errors: [ErrorJSON]
    /// The particulate sensor's reading (null without a sensor configured).
    public var measured: MeasuredJSON?
    /// Set when the report as a whole failed (its required air-quality part did): what
    /// the exit status says, as every failing `--json` document has it; null otherwise.
    public var error: JSONError?

    /// A coordinate.
    public struct CoordinateJSON: Encodable {
        /// Degrees north.
        public var latitude: Double
        /// Degrees east.
        public var longitude: Double
    }

    /// The air quality as the card leads with it.
    public struct Air: Encodable {
        /// The US AQI.
        public var usAqi: Int
        /// "open-meteo", or "computed" (EPA table, from the concentrations).
        public var usAqiSource: String
        /// The EPA category's key (`good`, `moderate`...).
        public var category: String
        /// The category's name as the EPA writes it.
        public var categoryName: String
        /// The category's colour (#RRGGBB).
        public var color: String
        /// What the category means.
        public var description: String
        /// What to do about it.
        public var advice: String
        /// The pollutant that sets the index.
        public var dominantPollutant: String?
        /// The data's hour (local time of the place, as the service gives it).
        public var time: String
        /// The place's IANA time zone.
        public var timezone: String
        /// Each pollutant's value.
        public var pollutants: [PollutantJSON]
        /// The European index, when the service gave it.
        public var europeanAqi: EuropeanJSON?
        /// Seconds since the answer was fetched when it came from the cache; null when fresh.
        public var cachedAgeS: Double?
        /// True when a cached answer stands in for a failed fetch.
        public var stale: Bool
    }

    /// What became of each part.
    public struct Parts: Encodable {
        /// What became of the air quality: "ok", "cached", "stale" or "failed".
        public var airQuality = "failed"
        /// What became of the pollen, as of the other parts.
        public var pollen = "failed"
        /// What became of the climate trend, as of the other parts.
        public var climate = "skipped"
    }

    /// The European Air Quality Index.
    public struct EuropeanJSON: Encodable {
        /// The index (0-100+).
        public var index: Int
        /// The band's key.
        public var category: String
        /// The band's name.
        public var categoryName: String
        /// The band's colour (#RRGGBB).
        public var color: String
        /// Open-Meteo's own `european_aqi` where it differs from `index` (null where they
        /// agree): `index` is airloc's one table, for the model and a sensor alike.
        public var openMeteoIndex: Int?
    }

    /// The last week against the 1991-2020 normal.
    public struct ClimateJSON: Encodable {
        /// True when the trend was computed.
        public var available: Bool
        /// "ok", "unavailable", "failed" or "skipped".
        public var status: String
        /// Why not, when it was not.
        public var reason: String?
        /// The recent days' mean, °C.
        public var recentMeanC: Double?
        /// The normal's mean over the same days, °C.
        public var baselineMeanC: Double?
        /// The difference, °C.
        public var differenceC: Double?
        /// The normal's period.
        public var baselinePeriod = Climatology.period
        /// Each recent day.
        public var days: [Day]

        /// One day of the trend.
        public struct Day: Encodable {
            var date: String
            var meanC: Double
            var normalC: Double
        }

        /// The trend of `outcome`.
        public init(_ outcome: ClimateOutcome) {
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
        public static func round(_ value: Double) -> Double { (value * 100).rounded() / 100 }
    }

    /// One pollutant.
    public struct PollutantJSON: Encodable {
        /// Open-Meteo's name (`pm2_5`).
        public var id: String
        /// The name for people ("PM2.5").
        public var name: String
        /// Its value.
        public var value: Double
        /// Its unit (µg/m³).
        public var unit: String
        /// Its own AQI, when the EPA defines one.
        public var aqi: Int?
        /// That AQI's category.
        public var category: String?
        /// Where `aqi` comes from: "open-meteo" or "computed"; null without an index.
        public var aqiSource: String?
    }

    /// Pollen, Europe only, in season.
    public struct PollenJSON: Encodable {
        /// False outside Europe or out of season: every species null, never zero.
        public var available: Bool
        /// The scale the levels are on.
        public var scale =
            "none 0, low 1-10, moderate 11-50, high 51-200 (trees) / 51-100 (grass, weeds), very high above"
        /// Trees, grasses and weeds.
        public var groups: [Group]
        /// Each species.
        public var species: [Species]

        /// One group's level.
        public struct Group: Encodable {
            var id: String
            var level: String
            var dominantSpecies: String
            var value: Double
        }

        /// One species' count and level.
        public struct Species: Encodable {
            var id: String
            var name: String
            var group: String
            var value: Double
            var unit = "grains/m3"
            var level: String
        }

        /// The pollen of `pollen`.
        public init(_ pollen: PollenReading) {
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

    /// A part that failed.
    public struct ErrorJSON: Encodable {
        /// Which part ("air_quality", "climate").
        public var part: String
        /// The service that failed.
        public var service: String?
        /// Why.
        public var message: String
        /// True when trying again later may help.
        public var retryable: Bool
    }

    /// The document of `report`.
    public init(_ report: AirReport) {
        let fix = report.fix
        generatedAt = UTCTime.iso8601Seconds(report.generatedAt)
        location = LocationJSON(
            fix: fix, provider: report.provider, authorizedAccuracy: report.accuracy, at: report.generatedAt)
        providers = report.attempts.map(AttemptJSON.init)
        place = report.place.map { PlaceJSON($0, at: report.generatedAt) }
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
                        index: index, category: band.rawValue, categoryName: band.name, color: band.color,
                        openMeteoIndex: reading.differingServiceEuropeanAQI)
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
            self.error = JSONError(code: error.isRetryable ? 75 : 69, message: error.description)
        }
        self.parts = parts
        self.sources = sources
        self.warnings = report.warnings
        self.errors = errors
        measured = MeasuredJSON.of(report)
    }

    /// Encodes with explicit nulls (see the contract) and sorted keys.
    public func encoded() -> String { JSONDocument.encode(self) }
}
