import AirQuality
import Foundation
import Gazetteer
import Geo
import Location
import Web

/// `airloc now`: where am I, and what is the air like here.
enum NowCommand {
    static let spec = CommandSpec(
        name: "now", summary: "Show the air quality at this device's location",
        usage: "[--json] [--lat DEG --lon DEG | --provider NAME] [--gpsd HOST:PORT] [--timeout S]",
        discussion: """
            Finds this device's position through the provider chain ([location] providers, default
            gpsd then manual; gpsd and ip only after you allowed it: see 'airloc auth'), names the nearest
            place offline, and fetches current air quality from Open-Meteo (CAMS). With --lat/--lon the
            given coordinates are used instead and nothing is sensed. Coordinates sent to Open-Meteo are
            rounded to [privacy] outbound-precision (default 0.01°, about 1 km).

            Exit status: 0 report complete; 75 air data temporarily unavailable (the location part is
            still printed); 69 gpsd or a service unavailable; 77 location not authorized; 64 bad usage.
            """,
        options: [
            .flag("json", "print one JSON document (schema airloc.report/1, docs/json-schema.md)"),
            .value("format", "FORMAT", "text (default), json, or line (one line for status bars)"),
        ]
            + LocationResolver.options)

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let format = try ReportFormat.parse(arguments, command: spec.name)
        let configuration = try LocationResolver.configure(context, command: spec.name)
        // Load the places before sensing: a broken installation should fail before we
        // touch the receiver or ask the user anything.
        let gazetteer = try DataLocator.loadGazetteer(environment: context.environment)
        let resolution = try await LocationResolver(
            context: context, configuration: configuration, gazetteer: gazetteer
        ).resolve()
        let fix = resolution.fix
        let accuracy = resolution.accuracy
        for warning in resolution.warnings { context.console.err("airloc: \(warning)\n") }

        let report = await airReport(
            fix: fix, provider: resolution.provider, attempts: resolution.attempts, accuracy: accuracy,
            configuration: configuration, gazetteer: gazetteer)
        format.print(report, console: context.console)
        return exitCode(for: report, console: context.console)
    }

    /// The report for a fix: the place it is in, and the air there (coordinates rounded
    /// to the outbound precision before they leave). Shared by `now` and `postal --air`.
    static func airReport(
        fix: Fix, provider: String, attempts: [LocationChain.Attempt], accuracy: AccuracyAuthorization,
        configuration: Configuration, gazetteer: Gazetteer, chosenPlace: Place? = nil
    ) async -> AirReport {
        // A place the user chose is named as chosen, not re-derived from its point.
        let place =
            chosenPlace.map { NearestPlace(place: $0, from: fix.coordinate) }
            ?? gazetteer.locality(for: fix.coordinate)
        let precision =
            accuracy == .reduced ? max(configuration.outboundPrecision, 0.05) : configuration.outboundPrecision
        let sent = fix.coordinate.rounded(toDegrees: precision)
        let client = OpenMeteoAirQuality(
            baseURL: configuration.airQualityURL,
            client: HTTPClient(timeout: .milliseconds(Int(configuration.serviceTimeout * 1000))))
        let air: Result<AirQualityReading, AirQualityError>
        do { air = .success(try await client.current(at: sent)) } catch { air = .failure(error) }
        var warnings: [String] = []
        if let place, place.distance > 50_000 {
            warnings.append("no populated place within 50 km; the nearest is \(place.relativeDescription)")
        }
        let override =
            configuration.airQualityURL == OpenMeteoAirQuality.defaultBaseURL
            ? nil : configuration.airQualityURL.base.absoluteString
        return AirReport(
            fix: fix, provider: provider, attempts: attempts, place: place, sentCoordinate: sent, air: air,
            airServiceOverride: override, accuracy: accuracy.rawValue, warnings: warnings, generatedAt: Date())
    }

    /// The exit status for a report: 0, or 75/69 when the air part failed.
    static func exitCode(for report: AirReport, console: Console) -> ExitCode {
        switch report.air {
        case .success: return .ok
        case .failure(let error):
            console.err("Error: \(error.description)\n")
            return error.isRetryable ? .tempFail : .unavailable
        }
    }
}
