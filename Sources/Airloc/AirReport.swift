import AirQuality
import Foundation
import Gazetteer
import Geo
import Location
import Platform
import Settings
import Web

/// "What is the air like here": everything a report found out, ready for rendering —
/// where, what place, what air, the climate trend, what was sent, and what went wrong
/// along the way.
///
/// Contract: a report always has a location; `data.air` holds either a reading or the
/// error that prevented one, so a failed air fetch never hides the location part, and
/// a failed climate fetch never hides the air.
public struct AirReport: Sendable {
    /// The fix the report is for.
    public var fix: Fix
    /// The provider that answered ("gpsd", "manual", "chosen", "postal").
    public var provider: String
    /// What each provider of the chain did.
    public var attempts: [LocationChain.Attempt] = []
    /// The place the fix is in.
    public var place: NearestPlace?
    /// The coordinate sent to the services (rounded for privacy).
    public var sentCoordinate: Coordinate
    /// What the services said.
    public var data: AirData
    /// The air quality, or why there is none.
    public var air: Result<AirQualityReading, AirQualityError> { data.air }
    /// The air-quality service's base URL when it is not the public one (a test double,
    /// a proxy): shown so a reader knows where the numbers came from.
    public var airServiceOverride: String?
    /// The accuracy the user authorized (reduced: the fix is coarsened before anything).
    public var accuracy: AccuracyAuthorization
    /// What a user should know.
    public var warnings: [String] = []
    /// The particulate sensor's reading beside the model (nil without a sensor).
    public var measured: MeasuredAir?
    /// The `[sensor.NAME]` CO₂ and climate sensors' readings (empty without any).
    public var climateSensors: [MeasuredClimate] = []
    /// When it was made.
    public var generatedAt: Date
    /// The temperature unit the card uses.
    public var units = TemperatureUnit.metric
    /// The index the card leads with.
    public var scale = AQIScale.us

    /// What a caller wants of a report beyond the place: units, scale, cache use, climate.
    public struct Request: Sendable {
        /// nil: the usual unit of the place's country (°F in the US).
        public var units: TemperatureUnit?
        /// The index the card leads with.
        public var scale: AQIScale
        /// Ask the services even when the cached answer is current.
        public var refresh: Bool
        /// Fetch the climate trend too (one or two requests more on a cold cache).
        public var climate: Bool

        /// What to ask for.
        public init(units: TemperatureUnit? = nil, scale: AQIScale = .us, refresh: Bool = false, climate: Bool = true) {
            self.units = units
            self.scale = scale
            self.refresh = refresh
            self.climate = climate
        }
    }

    /// The report for a fix: the place it is in, and the air there (the coordinate
    /// rounded by ``Privacy/outbound(_:precision:accuracy:)`` before it leaves), through
    /// the cache in the settings' cache directory. A place the user chose is named as
    /// chosen, not re-derived from its point.
    public static func make(
        fix: Fix, provider: String, attempts: [LocationChain.Attempt] = [], accuracy: AccuracyAuthorization,
        settings: Settings, gazetteer: Gazetteer, request: Request = Request(), chosenPlace: Place? = nil,
        transport: any HTTPTransport = NetworkTransport(), time: any TimeSource = SystemTime()
    ) async -> AirReport {
        let place =
            chosenPlace.map { NearestPlace(place: $0, from: fix.coordinate) }
            ?? gazetteer.locality(for: fix.coordinate)
        let sent = Privacy.outbound(fix.coordinate, precision: settings.outboundPrecision, accuracy: accuracy)
        var options = AirDataPipeline.Options(
            airQuality: settings.airQualityEndpoint, archive: settings.archiveEndpoint)
        options.requestTimeout = Settings.milliseconds(settings.serviceTimeout)
        options.deadline = Settings.milliseconds(max(settings.serviceDeadline, settings.serviceTimeout))
        options.cache = ResponseCache(directory: settings.directories.cache)
        options.maxStale = settings.maxStale
        options.refresh = request.refresh
        options.climate = request.climate
        let data = await AirDataPipeline(options: options, transport: transport, time: time).fetch(at: sent)

        var warnings: [String] = []
        if let place, place.distance > 50_000 {
            warnings.append("no populated place within 50 km; the nearest is \(place.relativeDescription)")
        }
        warnings += data.warnings
        if let doubt = fix.timeDoubt(system: time.date, notBefore: AirlocVersion.date) { warnings.append(doubt) }
        let override =
            settings.airQualityURL == OpenMeteoAirQuality.defaultBaseURL
            ? nil : settings.airQualityURL.base.absoluteString
        return AirReport(
            fix: fix, provider: provider, attempts: attempts, place: place, sentCoordinate: sent, data: data,
            airServiceOverride: override, accuracy: accuracy, warnings: warnings, generatedAt: time.date,
            units: request.units ?? TemperatureUnit.usual(forCountryCode: place?.place.countryCode),
            scale: request.scale)
    }
}

extension AirReport {
    /// Same place and same reading (or both failed): nothing a reader of a stream of
    /// reports (`now --watch` to a pipe) needs again.
    public func saysTheSame(as other: AirReport) -> Bool {
        guard place?.place.id == other.place?.place.id else { return false }
        switch (air, other.air) {
        case (.success(let x), .success(let y)): return x.time == y.time && x.usAQI == y.usAQI
        case (.failure, .failure): return true
        default: return false
        }
    }
}
