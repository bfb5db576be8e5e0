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
        usage: "[--json] [--lat DEG --lon DEG] [--gpsd HOST:PORT] [--timeout S]",
        discussion: """
            Reads the position from gpsd (after you allowed it: see 'airloc auth'), finds the nearest
            place offline, and fetches current air quality from Open-Meteo (CAMS). With --lat/--lon the
            given coordinates are used instead and nothing is sensed. Coordinates sent to Open-Meteo are
            rounded to [privacy] outbound-precision (default 0.01°, about 1 km).

            Exit status: 0 report complete; 75 air data temporarily unavailable (the location part is
            still printed); 69 gpsd or a service unavailable; 77 location not authorized; 64 bad usage.
            """,
        options: [
            .flag("json", "print one JSON document (schema airloc.report/1, docs/json-schema.md)"),
            .value("lat", "DEG", "use this latitude instead of sensing (-90...90)"),
            .value("lon", "DEG", "use this longitude instead of sensing (-180...180)"),
            .value("gpsd", "HOST:PORT", "gpsd to ask (default localhost:2947; also AIRLOC_GPSD)"),
            .value("timeout", "S", "seconds to wait for a GPS fix (default 10, [gpsd] timeout)"),
        ])

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        var configuration = context.configuration
        if let gpsd = arguments.value("gpsd") {
            do { configuration.gpsd = try Configuration.parseGPSD(gpsd, origin: "--gpsd") } catch {
                throw .usage(error.message.replacingOccurrences(of: "--gpsd=", with: "--gpsd "), command: spec.name)
            }
        }
        var timeout = configuration.gpsdTimeout
        if let text = arguments.value("timeout") {
            guard let value = Double(text), value.isFinite, (0.1...3600).contains(value) else {
                throw .usage("invalid --timeout '\(text)': expected seconds between 0.1 and 3600", command: spec.name)
            }
            timeout = value
        }
        let manual = try CoordinateArguments.parse(
            latitude: arguments.value("lat"), longitude: arguments.value("lon"), command: spec.name)

        // Load the places before sensing: a broken installation should fail before we
        // touch the receiver or ask the user anything.
        let gazetteer = try DataLocator.loadGazetteer(environment: context.environment)

        let provider: any LocationProvider
        var accuracy = AccuracyAuthorization.full
        if let manual {
            provider = ManualProvider(coordinate: manual)
        } else {
            let gate = AuthorizationGate(
                configuration: configuration, environment: context.environment, console: context.console)
            accuracy = try gate.authorize(
                purpose: "gpsd at \(configuration.gpsd.host):\(configuration.gpsd.port)")
            provider = GPSDProvider(options: configuration.gpsd)
        }

        var fix: Fix
        do {
            fix = try await provider.currentFix(timeout: .milliseconds(Int(timeout * 1000)))
        } catch let error as GPSDError {
            switch error {
            case .notReachable: throw CLIError(code: .unavailable, message: error.description)
            case .noFix, .wentAway, .protocolError: throw CLIError(code: .tempFail, message: error.description)
            }
        } catch {
            throw CLIError(code: .software, message: "reading the location failed: \(error)")
        }
        if accuracy == .reduced { fix = fix.reduced() }

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
            fix: fix, provider: provider.name, place: place, sentCoordinate: sent, air: air,
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
