import AirQuality
import Airloc
import Foundation
import Gazetteer
import Geo
import Location
import Platform
import Web

/// `airloc doctor`: checks everything the configured provider chain and the report need,
/// and says what to do about each problem.
///
/// Contract: sends nothing personal — the air-quality check asks for 0°, 0°, and the IP
/// service (which learns the device's address) is contacted only when the user put it in
/// the chain and authorized sensing. Exit 0 only when no check failed; warnings (an
/// optional part missing) do not fail it.
enum DoctorCommand {
    static let spec = CommandSpec(
        name: "doctor", summary: "Check gpsd, the receiver, permissions, services and configuration",
        usage: "[--json]",
        discussion: """
            Checks, in order: the configuration files, the offline place data, the authorization
            state, gpsd (reachable? which receivers does it see?), /dev/gps* links and serial device
            permissions (the dialout group), the manual location, and the configured web services.
            Each problem comes with what to do about it.

            Exit status: 0 all needed parts work (warnings allowed); 69 something the configured
            provider chain or the air report needs does not work; 78 the configuration is invalid.
            """,
        options: [.flag(.json, "print one JSON document (schema airloc.doctor/1)")])

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    /// One finding.
    struct Check: Encodable {
        enum Status: String {
            case ok
            case warn
            case fail
        }

        var name: String
        /// ok, warn or fail (a string: the JSON encoder writes it as such).
        var status: String
        var detail: String
        var advice: String?

        init(name: String, status: Status, detail: String, advice: String? = nil) {
            self.name = name
            self.status = status.rawValue
            self.detail = detail
            self.advice = advice
        }

        var level: Status { Status(rawValue: status) ?? .fail }
    }

    struct Report: Encodable {
        var schema = "airloc.doctor/1"
        var ok: Bool
        var checks: [Check]
    }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let configuration = context.configuration
        var checks: [Check] = []
        if let error = context.configurationError {
            checks.append(
                Check(name: "configuration", status: .fail, detail: error.message, advice: "fix the line named"))
        } else {
            let files =
                configuration.sources.isEmpty
                ? "defaults (no file)" : configuration.sources.joined(separator: ", ")
            checks.append(Check(name: "configuration", status: .ok, detail: files))
        }
        var gazetteer: Gazetteer?
        do {
            gazetteer = try PlaceData.loadGazetteer(environment: context.environment)
            checks.append(
                Check(name: "place data", status: .ok, detail: "\(gazetteer!.count) places from \(gazetteer!.location)")
            )
        } catch {
            checks.append(
                Check(
                    name: "place data", status: .fail, detail: error.message,
                    advice: "reinstall (make install) or set AIRLOC_DATA"))
        }
        let providers = configuration.providers
        let senses = providers.contains(.gpsd) || providers.contains(.ip)
        let machine = LocationAuthorization(
            stored: configuration.authorizationStore.load(), policy: configuration.policy)
        let authorized = machine.status == .authorizedWhenInUse || machine.status == .authorizedAlways
        let status = "\(machine.status.rawValue) (accuracy: \(machine.accuracy.rawValue))"
        if authorized || !senses {
            checks.append(Check(name: "authorization", status: .ok, detail: status))
        } else {
            checks.append(
                Check(
                    name: "authorization", status: .fail,
                    detail: status
                        + "; the chain lists \(providers.filter { $0 != .manual }.map(\.rawValue).joined(separator: ", "))",
                    advice: machine.status == .restricted
                        ? "the administrator forbids sensing (/etc/airloc/airloc.conf)"
                        : "run `airloc auth grant` (add --reduced for city level)"))
        }
        if providers.contains(.gpsd) { checks += await gpsdChecks(configuration) }
        checks += deviceChecks()
        if providers.contains(.manual) {
            if let gazetteer,
                let manual = try? LocationSession(settings: configuration, gazetteer: gazetteer).manualProvider()
            {
                checks.append(
                    Check(name: "manual location", status: .ok, detail: "\(manual.coordinate) (\(manual.origin))"))
            } else if configuration.manualPlace != nil {
                checks.append(
                    Check(
                        name: "manual location", status: .fail,
                        detail: "[location] place = \(configuration.manualPlace!) is not in the place data",
                        advice: "use another spelling, 'Name, CC', or latitude/longitude"))
            } else {
                checks.append(
                    Check(
                        name: "manual location", status: .warn, detail: "none configured (the chain's last resort)",
                        advice: "set [location] latitude/longitude or place, or pass --lat/--lon"))
            }
        }
        checks.append(await serviceCheck(configuration, environment: context.environment))
        if providers.contains(.ip) && authorized {
            checks.append(await ipCheck(configuration))
        }

        let ok = !checks.contains { $0.level == .fail }
        if context.arguments.has(.json) {
            context.console.out(JSONDocument.encode(Report(ok: ok, checks: checks)))
        } else {
            context.console.out(render(checks, console: context.console))
        }
        if context.configurationError != nil { return .config }
        return ok ? .ok : .unavailable
    }

    static func gpsdChecks(_ configuration: Settings) async -> [Check] {
        let address = "\(configuration.gpsd.host):\(configuration.gpsd.port)"
        let provider = GPSDProvider(options: configuration.gpsd)
        do {
            let devices = try await provider.devices(timeout: .seconds(3))
            if devices.isEmpty {
                return [
                    Check(
                        name: "gpsd", status: .fail, detail: "running at \(address) but sees no receiver",
                        advice:
                            "plug the receiver in; with USBAUTO=\"true\" in /etc/default/gpsd it is added on hotplug, "
                            + "or run `sudo gpsdctl add /dev/ttyACM0`")
                ]
            }
            let list = devices.map { $0.path + ($0.driver.map { " (\($0))" } ?? "") }.joined(separator: ", ")
            return [Check(name: "gpsd", status: .ok, detail: "running at \(address); receivers: \(list)")]
        } catch {
            return [
                Check(
                    name: "gpsd", status: .fail, detail: "\(error)",
                    advice:
                        "start it (`sudo systemctl enable --now gpsd.socket`), or point airloc at it with [gpsd] host/port or AIRLOC_GPSD"
                )
            ]
        }
    }

    /// /dev/gps* links and whether this user may open the serial receivers.
    static func deviceChecks() -> [Check] {
        let dev = (try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []
        let links = dev.filter { $0.hasPrefix("gps") }.sorted()
        var checks: [Check] = []
        if links.isEmpty {
            checks.append(
                Check(
                    name: "/dev/gps*", status: .warn, detail: "no /dev/gps* link",
                    advice: "receivers Debian's 60-gpsd.rules does not know get one from airloc's udev rules: "
                        + "`sudo make install`, then `sudo udevadm control --reload && sudo udevadm trigger`"))
        } else {
            let described = links.map { name -> String in
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/dev/\(name)")) ?? "?"
                return "/dev/\(name) → \(target)"
            }
            checks.append(Check(name: "/dev/gps*", status: .ok, detail: described.joined(separator: ", ")))
        }
        let serial = dev.filter { $0.hasPrefix("ttyUSB") || $0.hasPrefix("ttyACM") }.sorted()
        for name in serial {
            let device = DeviceAccess(path: "/dev/\(name)")
            if device.isOpenable {
                checks.append(Check(name: device.path, status: .ok, detail: "readable by this user"))
            } else {
                checks.append(
                    Check(
                        name: device.path, status: .warn, detail: "this user cannot open it (group \(device.group))",
                        advice:
                            "gpsd opens it as root, so airloc does not need to; to read it yourself: `sudo usermod -aG \(device.group) $USER` and log in again"
                    ))
            }
        }
        return checks
    }

    static func serviceCheck(_ configuration: Settings, environment: [String: String]) async -> Check {
        // After a 429 Open-Meteo asked to be left alone: doctor must not ask anyway.
        let cache = ResponseCache(directory: XDGDirectories(environment: environment).cache)
        if let backoff = RateLimitBackoff.load(from: cache, now: Date()) {
            return Check(
                name: "air quality service", status: .warn, detail: "not asked: \(backoff.explanation)",
                advice: "reports use cached answers until then; commercial use: [services] open-meteo-api-key")
        }
        let endpoint = OpenMeteoEndpoint(
            base: configuration.airQualityURL, publicBase: OpenMeteoAirQuality.defaultBaseURL,
            apiKey: configuration.openMeteoAPIKey)
        let client = OpenMeteoAirQuality(
            endpoint: endpoint, client: HTTPClient(timeout: .seconds(min(configuration.serviceTimeout, 10))))
        let key = endpoint.sendsAPIKey ? " (with your API key)" : ""
        do {
            _ = try await client.current(at: Coordinate(uncheckedLatitude: 0, longitude: 0))
            return Check(
                name: "air quality service", status: .ok, detail: "\(endpoint.base.base.absoluteString) answers\(key)")
        } catch {
            return Check(
                name: "air quality service", status: .fail, detail: error.description,
                advice: "check the network, or [services] air-quality-url / AIRLOC_AIR_QUALITY_URL")
        }
    }

    static func ipCheck(_ configuration: Settings) async -> Check {
        let provider = IPLocationProvider(service: configuration.ipService, baseURL: configuration.ipURL)
        do {
            _ = try await provider.locate(timeout: .seconds(min(configuration.serviceTimeout, 10)))
            return Check(name: "IP geolocation", status: .ok, detail: "\(provider.service.rawValue) answers")
        } catch {
            return Check(
                name: "IP geolocation", status: .fail, detail: error.description,
                advice: "choose another [services] ip-service, or remove ip from [location] providers")
        }
    }

    static func render(_ checks: [Check], console: Console) -> String {
        var lines: [String] = []
        for check in checks {
            let word: String
            switch check.level {
            case .ok: word = console.dim("ok  ")
            case .warn: word = console.warning("warn")
            case .fail: word = console.bold("FAIL")
            }
            lines.append("\(word)  \(check.name): \(check.detail)")
            if let advice = check.advice, check.level != .ok { lines.append("      → \(advice)") }
        }
        let failed = checks.filter { $0.level == .fail }.count
        lines.append(failed == 0 ? "All needed parts work." : "\(failed) problem\(failed == 1 ? "" : "s") to fix.")
        return lines.joined(separator: "\n") + "\n"
    }
}
