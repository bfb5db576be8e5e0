import AirQuality
import Foundation
import Geo
import Location
import Platform
import Settings
import Web

/// One finding of a health check (`airloc doctor`, a logger's status): what was checked,
/// how it went, and what to do about a problem.
///
/// Contract: checks send nothing personal (the air-quality service is asked for 0°, 0°);
/// `advice` is set for every warning and failure.
public struct HealthCheck: Encodable, Sendable {
    /// ok, warn or fail (written as those words in JSON).
    public enum Status: String, Sendable, Encodable {
        case ok
        case warn
        case fail
    }

    /// What was checked ("gpsd").
    public var name: String
    /// ok, warn or fail.
    public var status: Status
    /// What was found.
    public var detail: String
    /// What to do about it.
    public var advice: String?

    /// A check's result.
    public init(name: String, status: Status, detail: String, advice: String? = nil) {
        self.name = name
        self.status = status
        self.detail = detail
        self.advice = advice
    }
}

extension HealthCheck {
    /// The authorization state, and whether unattended use (scripts, the logger) may sense:
    /// a failure only when the chain senses (`senses`) and may not.
    public static func authorization(
        _ machine: LocationAuthorization, providers: [Settings.ProviderName], senses: Bool
    ) -> [HealthCheck] {
        let status = "\(machine.status.rawValue) (accuracy: \(machine.accuracy.rawValue))"
        let sensing = providers.filter { $0 != .manual }.map(\.rawValue).joined(separator: ", ")
        switch machine.status {
        case .authorizedAlways:
            return [
                HealthCheck(name: "authorization", status: .ok, detail: status),
                HealthCheck(name: "unattended use", status: .ok, detail: "allowed (always)"),
            ]
        case .authorizedWhenInUse:
            return [
                HealthCheck(name: "authorization", status: .ok, detail: status),
                HealthCheck(
                    name: "unattended use", status: senses ? .warn : .ok,
                    detail: "not allowed: only use at a terminal was granted",
                    advice: "scripts, cron, systemd and the logger need `airloc auth grant --always`"),
            ]
        default:
            guard senses else { return [HealthCheck(name: "authorization", status: .ok, detail: status)] }
            return [
                HealthCheck(
                    name: "authorization", status: .fail, detail: status + "; the chain lists \(sensing)",
                    advice: machine.status == .restricted
                        ? "the administrator forbids sensing (/etc/airloc/airloc.conf)"
                        : "run `airloc auth grant` (at a terminal) or `airloc auth grant --always` "
                            + "(also unattended; add --reduced for city level)")
            ]
        }
    }
}

extension HealthCheck {
    /// gpsd reachable, and the receivers it sees.
    public static func gpsd(_ configuration: Settings) async -> [HealthCheck] {
        let address = "\(configuration.gpsd.host):\(configuration.gpsd.port)"
        let provider = GPSDProvider(options: configuration.gpsd)
        do {
            let devices = try await provider.devices(timeout: .seconds(3))
            if devices.isEmpty {
                return [
                    HealthCheck(
                        name: "gpsd", status: .fail, detail: "running at \(address) but sees no receiver",
                        advice:
                            "plug the receiver in; with USBAUTO=\"true\" in /etc/default/gpsd it is added on hotplug, "
                            + "or run `sudo gpsdctl add /dev/ttyACM0`")
                ]
            }
            let list = devices.map { $0.path + ($0.driver.map { " (\($0))" } ?? "") }.joined(separator: ", ")
            return [HealthCheck(name: "gpsd", status: .ok, detail: "running at \(address); receivers: \(list)")]
        } catch {
            return [
                HealthCheck(
                    name: "gpsd", status: .fail, detail: "\(error)",
                    advice:
                        "start it (`sudo systemctl enable --now gpsd.socket`), or point airloc at it with [gpsd] host/port or AIRLOC_GPSD"
                )
            ]
        }
    }

    /// /dev/gps* links and whether this user may open the serial receivers.
    public static func devices() -> [HealthCheck] {
        let dev = (try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []
        let links = dev.filter { $0.hasPrefix("gps") }.sorted()
        var checks: [HealthCheck] = []
        if links.isEmpty {
            checks.append(
                HealthCheck(
                    name: "/dev/gps*", status: .warn, detail: "no /dev/gps* link",
                    advice: "receivers Debian's 60-gpsd.rules does not know get one from airloc's udev rules "
                        + "(the airloc package installs them, or `sudo make install`), "
                        + "then `sudo udevadm control --reload && sudo udevadm trigger`"))
        } else {
            let described = links.map { name -> String in
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/dev/\(name)")) ?? "?"
                return "/dev/\(name) → \(target)"
            }
            checks.append(HealthCheck(name: "/dev/gps*", status: .ok, detail: described.joined(separator: ", ")))
        }
        let serial = dev.filter { $0.hasPrefix("ttyUSB") || $0.hasPrefix("ttyACM") }.sorted()
        for name in serial {
            let device = DeviceAccess(path: "/dev/\(name)")
            if device.isOpenable {
                checks.append(HealthCheck(name: device.path, status: .ok, detail: "readable by this user"))
            } else {
                checks.append(
                    HealthCheck(
                        name: device.path, status: .warn, detail: "this user cannot open it (group \(device.group))",
                        advice:
                            "gpsd opens it as root, so airloc does not need to; to read it yourself: \(device.remedy)"
                    ))
            }
        }
        return checks
    }

    /// The air-quality service, asked for 0°, 0° (nothing personal); not asked at all during
    /// a rate-limit back-off.
    public static func airQualityService(_ configuration: Settings, environment: [String: String]) async
        -> HealthCheck
    {
        // After a 429 Open-Meteo asked to be left alone: doctor must not ask anyway.
        let gate = OpenMeteoGate(cache: ResponseCache(directory: configuration.directories.cache))
        if let backoff = gate.closed(at: Date()) {
            return HealthCheck(
                name: "air quality service", status: .warn, detail: "not asked: \(backoff.explanation)",
                advice: "reports use cached answers until then; commercial use: [services] open-meteo-api-key")
        }
        let endpoint = OpenMeteoEndpoint(
            base: configuration.airQualityURL, publicBase: OpenMeteoAirQuality.defaultBaseURL,
            apiKey: configuration.openMeteoAPIKey)
        let client = OpenMeteoAirQuality(
            endpoint: endpoint,
            client: HTTPClient(timeout: Settings.milliseconds(min(configuration.serviceTimeout, 10))))
        let key = endpoint.sendsAPIKey ? " (with your API key)" : ""
        do {
            _ = try await client.current(at: Coordinate(uncheckedLatitude: 0, longitude: 0))
            return HealthCheck(
                name: "air quality service", status: .ok, detail: "\(endpoint.base.base.absoluteString) answers\(key)")
        } catch {
            // Open-Meteo's limit covers all its APIs: the next report waits too.
            if case .web(let web) = error, case .rateLimited = web {
                gate.record(web, at: Date())
                return HealthCheck(
                    name: "air quality service", status: .warn, detail: error.description,
                    advice: "reports use cached answers until the limit resets; "
                        + "commercial use: [services] open-meteo-api-key")
            }
            return HealthCheck(
                name: "air quality service", status: .fail, detail: error.description,
                advice: "check the network, or [services] air-quality-url / AIRLOC_AIR_QUALITY_URL")
        }
    }

    /// The IP geolocation service (it learns the address: only when it is in the chain).
    public static func ipService(_ configuration: Settings) async -> HealthCheck {
        let provider = IPLocationProvider(service: configuration.ipService, baseURL: configuration.ipURL)
        do {
            _ = try await provider.locate(timeout: Settings.milliseconds(min(configuration.serviceTimeout, 10)))
            return HealthCheck(name: "IP geolocation", status: .ok, detail: "\(provider.service.rawValue) answers")
        } catch {
            return HealthCheck(
                name: "IP geolocation", status: .fail, detail: error.description,
                advice: "choose another [services] ip-service, or remove ip from [location] providers")
        }
    }

    /// Secrets anyone can read: a configuration file holding a password or API key, or
    /// the `[mqtt] password-file`, readable by others (a group, e.g. the service's own
    /// `root:airloc 0640`, is the administrator's choice).
    public static func secrets(_ configuration: Settings) -> [HealthCheck] {
        var files = configuration.secretSources.map { source in
            (path: String(source[..<(source.lastIndex(of: ":") ?? source.endIndex)]), what: source)
        }
        if let file = configuration.mqtt.broker.passwordFile { files.append((file, "[mqtt] password-file \(file)")) }
        var seen: Set<String> = []
        return files.compactMap { file in
            guard seen.insert(file.path).inserted,
                let mode = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.posixPermissions] as? Int,
                mode & 0o004 != 0
            else { return nil }
            return HealthCheck(
                name: "secrets", status: .warn,
                detail: "\(file.what) holds a secret and others can read it (mode \(String(mode & 0o777, radix: 8)))",
                advice: "chmod o-r \(file.path)")
        }
    }
}
