import AirQuality
import FileSystem
import Foundation
import Gazetteer
import Geo
import Location
import Web

/// Everything a report found out, ready for rendering: where, what place, what air,
/// the climate trend, what was sent, and what went wrong along the way.
///
/// Contract: a report always has a location; `data.air` holds either a reading or the
/// error that prevented one, so a failed air fetch never hides the location part, and
/// a failed climate fetch never hides the air.
struct AirReport: Sendable {
    var fix: Fix
    /// The provider that answered ("gpsd", "manual", "chosen", "postal").
    var provider: String
    /// What each provider of the chain did.
    var attempts: [LocationChain.Attempt] = []
    var place: NearestPlace?
    /// The coordinate sent to the services (rounded for privacy).
    var sentCoordinate: Coordinate
    var data: AirData
    var air: Result<AirQualityReading, AirQualityError> { data.air }
    /// The air-quality service's base URL when it is not the public one (a test double,
    /// a proxy): shown so a reader knows where the numbers came from.
    var airServiceOverride: String?
    var accuracy: String
    var warnings: [String] = []
    var generatedAt: Date
    var units = TemperatureUnit.metric
    var scale = AQIScale.us

    /// The report for a fix: the place it is in, and the air there (coordinates rounded
    /// to the outbound precision before they leave). Shared by `now`, `air` and
    /// `postal --air`.
    static func make(
        fix: Fix, provider: String, attempts: [LocationChain.Attempt], accuracy: AccuracyAuthorization,
        context: CommandContext, configuration: Configuration, gazetteer: Gazetteer, options: ReportOptions,
        chosenPlace: Place? = nil
    ) async -> AirReport {
        // A place the user chose is named as chosen, not re-derived from its point.
        let place =
            chosenPlace.map { NearestPlace(place: $0, from: fix.coordinate) }
            ?? gazetteer.locality(for: fix.coordinate)
        let precision =
            accuracy == .reduced ? max(configuration.outboundPrecision, 0.05) : configuration.outboundPrecision
        let sent = fix.coordinate.rounded(toDegrees: precision)
        var pipelineOptions = AirDataPipeline.Options(
            airQuality: OpenMeteoEndpoint(
                base: configuration.airQualityURL, publicBase: OpenMeteoAirQuality.defaultBaseURL,
                apiKey: configuration.openMeteoAPIKey),
            archive: OpenMeteoEndpoint(
                base: configuration.archiveURL, publicBase: OpenMeteoArchive.defaultBaseURL,
                apiKey: configuration.openMeteoAPIKey))
        pipelineOptions.requestTimeout = .milliseconds(Int(configuration.serviceTimeout * 1000))
        pipelineOptions.deadline = .milliseconds(
            Int(max(configuration.serviceDeadline, configuration.serviceTimeout) * 1000))
        pipelineOptions.cache = ResponseCache(directory: XDGDirectories(environment: context.environment).cache)
        pipelineOptions.maxStale = configuration.maxStale
        pipelineOptions.refresh = options.refresh
        pipelineOptions.climate = options.climate

        // The seed's isLoading: a spinner on a terminal when the answer is slow.
        let spinner =
            options.format != .json && context.console.stderrIsTTY ? Spinner(message: "Fetching air quality…") : nil
        let data = await AirDataPipeline(options: pipelineOptions).fetch(at: sent)
        await spinner?.stop()

        var warnings: [String] = []
        if let place, place.distance > 50_000 {
            warnings.append("no populated place within 50 km; the nearest is \(place.relativeDescription)")
        }
        warnings += data.warnings
        let override =
            configuration.airQualityURL == OpenMeteoAirQuality.defaultBaseURL
            ? nil : configuration.airQualityURL.base.absoluteString
        return AirReport(
            fix: fix, provider: provider, attempts: attempts, place: place, sentCoordinate: sent, data: data,
            airServiceOverride: override, accuracy: accuracy.rawValue, warnings: warnings, generatedAt: Date(),
            units: options.temperatureUnit(countryCode: place?.place.countryCode), scale: options.scale)
    }

    /// The exit status for a report: 0 when air quality came through (fresh or cached),
    /// 75 when it failed for a reason that may pass, 69 otherwise.
    static func exitCode(for report: AirReport, console: Console) -> ExitCode {
        switch report.air {
        case .success: return .ok
        case .failure(let error):
            console.err("Error: \(error.description)\n")
            return error.isRetryable ? .tempFail : .unavailable
        }
    }
}
