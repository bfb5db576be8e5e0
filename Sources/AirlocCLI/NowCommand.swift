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
        options: [.flag("json", "print one JSON document (schema airloc.report/1, docs/json-schema.md)")]
            + LocationResolver.options)

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let arguments = context.arguments
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

        let place = gazetteer.locality(for: fix.coordinate)
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
        let report = AirReport(
            fix: fix, provider: resolution.provider, attempts: resolution.attempts, place: place, sentCoordinate: sent,
            air: air,
            airServiceOverride: override, accuracy: accuracy.rawValue, warnings: warnings, generatedAt: Date())
        if arguments.has("json") {
            context.console.out(ReportJSON(report).encoded())
        } else {
            context.console.out(ReportText(console: context.console).render(report))
        }
        switch air {
        case .success: return .ok
        case .failure(let error):
            context.console.err("Error: \(error.description)\n")
            return error.isRetryable ? .tempFail : .unavailable
        }
    }
}
