import AirQuality
import FileSystem
import Foundation
import Location
import Web

/// Everything airloc can be configured with, after layering
/// /etc/airloc/airloc.conf → $XDG_CONFIG_HOME/airloc/airloc.conf (or --config /
/// AIRLOC_CONFIG) → environment → command-line flags.
///
/// Contract: an unknown section or key, or a value of the wrong form, is a
/// ``CLIError`` with code EX_CONFIG naming file:line and what was expected — never
/// ignored, because a typo in a privacy setting must not silently fall back to a
/// default. The `[authorization]` section is honoured only in the system file.
struct Configuration: Sendable {
    var gpsd = GPSDProvider.Options()
    /// Seconds to wait for a first GPS fix.
    var gpsdTimeout: Double = 10
    /// Seconds without a valid fix before it is stale, and before it is lost.
    var gpsdStaleAfter: Double = 5
    var gpsdLostAfter: Double = 30
    /// The location providers in the order they are tried.
    var providers: [ProviderName] = [.gpsd, .manual]
    /// A place name for the manual provider (`[location] place`), resolved offline.
    var manualPlace: String?
    var ipService = IPService.ipwhois
    var airQualityURL = ServiceURL(string: "https://air-quality-api.open-meteo.com")!
    var geocodingURL = ServiceURL(string: "https://geocoding-api.open-meteo.com")!
    var archiveURL = ServiceURL(string: "https://archive-api.open-meteo.com")!
    var postalURL = ServiceURL(string: "https://api.zippopotam.us")!
    /// nil: the chosen ``ipService``'s own endpoint.
    var ipURL: ServiceURL?
    /// Seconds allowed for one web request.
    var serviceTimeout: Double = 10
    /// Seconds for a whole report (all requests, retries included).
    var serviceDeadline: Double = 15
    /// Commercial Open-Meteo access (`customer-` hosts); never logged.
    var openMeteoAPIKey: String?
    /// How old a cached report may be and stand in when the network fails.
    var maxStale: Double = 6 * 3600
    /// nil = auto (imperial for US places).
    var units: TemperatureUnit?
    var scale = AQIScale.us
    /// The user's choice (`airloc use`) from the state directory; above `[location]`.
    var chosenPlace: ChosenPlace?
    /// Degrees to which coordinates are rounded before they leave the device.
    var outboundPrecision: Double = 0.01
    var manualLatitude: Double?
    var manualLongitude: Double?
    var policy = AuthorizationPolicy()
    var color = ColorChoice.auto
    /// The files that were read, in order (for `--verbose` and `doctor`).
    var loadedFiles: [String] = []

    enum ColorChoice: String, Sendable, CaseIterable { case auto, always, never }

    /// The location providers a chain can hold.
    enum ProviderName: String, Sendable, CaseIterable { case gpsd, ip, manual }

    /// The GPS timing the configuration asks for.
    var gpsdTiming: GPSDTiming {
        GPSDTiming(firstFix: gpsdTimeout, staleAfter: gpsdStaleAfter, lostAfter: gpsdLostAfter)
    }

    /// "gpsd, ip, manual" → the list; nil when a name is unknown or repeated, or the list is empty.
    static func parseProviders(_ text: String) -> [ProviderName]? {
        let names = text.split(whereSeparator: { $0 == "," || $0 == " " }).map { ProviderName(rawValue: String($0)) }
        guard !names.isEmpty, !names.contains(nil) else { return nil }
        let list = names.compactMap { $0 }
        return Set(list).count == list.count ? list : nil
    }

    /// Every key a config file may hold, by section, with the form of its value.
    static let schema: [String: [String: String]] = [
        "gpsd": [
            "host": "a host name or address", "port": "a port number 1-65535", "timeout": "seconds, 0.1-3600",
            "stale-after": "seconds, 1-3600", "lost-after": "seconds, 1-86400",
        ],
        "services": [
            "air-quality-url": "an http(s) base URL", "geocoding-url": "an http(s) base URL",
            "archive-url": "an http(s) base URL", "postal-url": "an http(s) base URL", "ip-url": "an http(s) base URL",
            "timeout": "seconds, 0.1-300", "ip-service": "ipwho.is, ipinfo.io, ipapi.co or ip-api.com",
            "deadline": "seconds, 1-600", "open-meteo-api-key": "an Open-Meteo API key (letters, digits, - and _)",
        ],
        "cache": ["max-stale": "a duration: seconds, or with m or h (e.g. 6h); 0 turns the offline fallback off"],
        "location": [
            "latitude": "degrees, -90 to 90", "longitude": "degrees, -180 to 180",
            "place": "a place name, optionally with ', country' (e.g. Paris, FR)",
            "providers": "a list of gpsd, ip, manual in the order to try them (e.g. gpsd, manual)",
        ],
        "privacy": ["outbound-precision": "degrees, 0.0001-1 (e.g. 0.01 ≈ 1 km)"],
        "authorization": ["policy": "ask, allow or forbid", "max-accuracy": "full or reduced"],
        "display": [
            "color": "auto, always or never", "units": "auto, metric or imperial", "scale": "us or eu",
        ],
    ]

    /// The environment variables that override the files (stable names; docs/configuration.md).
    static let environmentURLs: [(variable: String, key: String)] = [
        ("AIRLOC_AIR_QUALITY_URL", "air-quality-url"), ("AIRLOC_GEOCODING_URL", "geocoding-url"),
        ("AIRLOC_ARCHIVE_URL", "archive-url"), ("AIRLOC_POSTAL_URL", "postal-url"), ("AIRLOC_IP_URL", "ip-url"),
    ]

    /// Loads the layers. `explicitPath` is `--config`; flags are applied by the commands.
    static func load(environment: [String: String], explicitPath: String?) throws(CLIError) -> Configuration {
        var configuration = Configuration()
        let systemPath = environment["AIRLOC_SYSTEM_CONFIG"] ?? "/etc/airloc/airloc.conf"
        if let entries = try ConfigFile.load(path: systemPath) {
            try configuration.apply(entries, path: systemPath, isSystem: true)
            configuration.loadedFiles.append(systemPath)
        }
        let userPath: String
        if let explicit = explicitPath ?? environment["AIRLOC_CONFIG"] {
            userPath = explicit
            guard FileManager.default.fileExists(atPath: explicit) else {
                throw .config("\(explicit): configuration file not found")
            }
        } else {
            userPath = XDGDirectories(environment: environment).config.appendingPathComponent("airloc.conf").path
        }
        if let entries = try ConfigFile.load(path: userPath) {
            try configuration.apply(entries, path: userPath, isSystem: false)
            configuration.loadedFiles.append(userPath)
        }
        try configuration.applyEnvironment(environment)
        configuration.chosenPlace = ChosenPlace.load(environment: environment)
        return configuration
    }

    mutating func apply(_ entries: [ConfigFile.Entry], path: String, isSystem: Bool) throws(CLIError) {
        for entry in entries {
            let at = "\(path):\(entry.line)"
            guard let keys = Self.schema[entry.section] else {
                let hint = suggestion(for: entry.section, among: Array(Self.schema.keys)).map {
                    " (did you mean [\($0)]?)"
                }
                throw .config("\(at): unknown section [\(entry.section)]\(hint ?? "")")
            }
            guard let expected = keys[entry.key] else {
                let hint = suggestion(for: entry.key, among: Array(keys.keys)).map { " (did you mean '\($0)'?)" }
                throw .config("\(at): unknown key '\(entry.key)' in [\(entry.section)]\(hint ?? "")")
            }
            if entry.section == "authorization" && !isSystem {
                throw .config(
                    "\(at): [authorization] is the administrator's setting; it is read only from /etc/airloc/airloc.conf"
                )
            }
            guard try set(section: entry.section, key: entry.key, value: entry.value) else {
                throw .config("\(at): invalid value '\(entry.value)' for \(entry.key): expected \(expected)")
            }
        }
    }

    /// Sets one key; false when the value has the wrong form.
    mutating func set(section: String, key: String, value raw: String) throws(CLIError) -> Bool {
        let value = raw.trimmingCharacters(in: .whitespaces)
        func number(_ range: ClosedRange<Double>) -> Double? {
            guard let number = Double(value), number.isFinite, range.contains(number) else { return nil }
            return number
        }
        switch (section, key) {
        case ("gpsd", "host"):
            guard !value.isEmpty, !value.contains(" ") else { return false }
            gpsd.host = value
        case ("gpsd", "port"):
            guard let port = Int(value), (1...65535).contains(port) else { return false }
            gpsd.port = port
        case ("gpsd", "timeout"):
            guard let seconds = number(0.1...3600) else { return false }
            gpsdTimeout = seconds
        case ("gpsd", "stale-after"):
            guard let seconds = number(1...3600) else { return false }
            gpsdStaleAfter = seconds
        case ("gpsd", "lost-after"):
            guard let seconds = number(1...86400) else { return false }
            gpsdLostAfter = seconds
        case ("services", "timeout"):
            guard let seconds = number(0.1...300) else { return false }
            serviceTimeout = seconds
        case ("services", "deadline"):
            guard let seconds = number(1...600) else { return false }
            serviceDeadline = seconds
        case ("services", "open-meteo-api-key"):
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_"))
            guard !value.isEmpty, value.count <= 200, value.unicodeScalars.allSatisfy(allowed.contains) else {
                return false
            }
            openMeteoAPIKey = value
        case ("cache", "max-stale"):
            guard let seconds = Self.parseDuration(value) else { return false }
            maxStale = seconds
        case ("display", "units"):
            guard value == "auto" || TemperatureUnit(rawValue: value) != nil else { return false }
            units = TemperatureUnit(rawValue: value)
        case ("display", "scale"):
            guard let scale = AQIScale(rawValue: value) else { return false }
            self.scale = scale
        case ("services", "ip-service"):
            guard let service = IPService(rawValue: value) else { return false }
            ipService = service
        case ("location", "place"):
            guard !value.isEmpty, value.count <= 200 else { return false }
            manualPlace = value
        case ("location", "providers"):
            guard let list = Self.parseProviders(value) else { return false }
            providers = list
        case ("services", _):
            guard let url = ServiceURL(string: value) else { return false }
            switch key {
            case "air-quality-url": airQualityURL = url
            case "geocoding-url": geocodingURL = url
            case "archive-url": archiveURL = url
            case "postal-url": postalURL = url
            default: ipURL = url
            }
        case ("location", "latitude"):
            guard let degrees = number(-90...90) else { return false }
            manualLatitude = degrees
        case ("location", "longitude"):
            guard let degrees = number(-180...180) else { return false }
            manualLongitude = degrees
        case ("privacy", "outbound-precision"):
            guard let degrees = number(0.0001...1) else { return false }
            outboundPrecision = degrees
        case ("authorization", "policy"):
            guard let mode = AuthorizationPolicy.Mode(rawValue: value) else { return false }
            policy.mode = mode
        case ("authorization", "max-accuracy"):
            guard let accuracy = AccuracyAuthorization(rawValue: value) else { return false }
            policy.maximumAccuracy = accuracy
        case ("display", "color"):
            guard let choice = ColorChoice(rawValue: value) else { return false }
            color = choice
        default:
            return false
        }
        return true
    }

    /// "6h", "30m", "90s" or plain seconds, up to a week.
    static func parseDuration(_ text: String) -> Double? {
        let factors: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var digits = Substring(text)
        var factor = 1.0
        if let last = text.last, let unit = factors[last] {
            digits = text.dropLast()
            factor = unit
        }
        guard let value = Double(digits), value.isFinite, value >= 0, value * factor <= 7 * 86_400 else { return nil }
        return value * factor
    }

    mutating func applyEnvironment(_ environment: [String: String]) throws(CLIError) {
        if let key = environment["AIRLOC_OPEN_METEO_API_KEY"], !key.isEmpty {
            guard try set(section: "services", key: "open-meteo-api-key", value: key) else {
                throw .config("AIRLOC_OPEN_METEO_API_KEY: not an API key (letters, digits, - and _)")
            }
        }
        if let gpsd = environment["AIRLOC_GPSD"], !gpsd.isEmpty {
            self.gpsd = try Self.parseGPSD(gpsd, origin: "AIRLOC_GPSD")
        }
        for (variable, key) in Self.environmentURLs {
            guard let value = environment[variable], !value.isEmpty else { continue }
            guard try set(section: "services", key: key, value: value) else {
                throw .config("\(variable)='\(value)': expected an http(s) base URL such as http://127.0.0.1:8080")
            }
        }
    }

    /// "host:port", "host" or "[::1]:2947".
    static func parseGPSD(_ text: String, origin: String) throws(CLIError) -> GPSDProvider.Options {
        var host = text
        var port = 2947
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.hasPrefix(":") {
                guard let value = Int(rest.dropFirst()), (1...65535).contains(value) else {
                    throw .config("\(origin)='\(text)': expected host:port with a port 1-65535")
                }
                port = value
            }
        } else if let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon {
            host = String(text[..<colon])
            guard let value = Int(text[text.index(after: colon)...]), (1...65535).contains(value) else {
                throw .config("\(origin)='\(text)': expected host:port with a port 1-65535")
            }
            port = value
        }
        guard !host.isEmpty, !host.contains(" ") else { throw .config("\(origin)='\(text)': expected host:port") }
        return GPSDProvider.Options(host: host, port: port)
    }
}
