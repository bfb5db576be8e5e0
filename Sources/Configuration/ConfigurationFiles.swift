import Foundation
import Location
import Platform
import Settings

/// Reads ``Settings`` from airloc.conf files and the environment, in layers:
/// the system file (/etc/airloc/airloc.conf) → the user's ($XDG_CONFIG_HOME/airloc/
/// airloc.conf, or `--config` / `AIRLOC_CONFIG`) → environment variables. Command-line
/// flags are the caller's last layer.
///
/// Contract: an unknown section or key, or a value of the wrong form, is a
/// ``ConfigurationError`` naming file:line and what was expected (``ConfigurationKey``)
/// — never ignored, because a typo in a privacy setting must not silently fall back to a
/// default. `[authorization]` is honoured only in the system file. A secret's value is
/// never repeated in an error.
public enum ConfigurationFiles {
    /// The environment variables that override the files' service URLs (stable names;
    /// docs/configuration.md).
    public static let environmentURLs: [(variable: String, key: String)] = [
        ("AIRLOC_AIR_QUALITY_URL", "air-quality-url"), ("AIRLOC_GEOCODING_URL", "geocoding-url"),
        ("AIRLOC_ARCHIVE_URL", "archive-url"), ("AIRLOC_POSTAL_URL", "postal-url"), ("AIRLOC_IP_URL", "ip-url"),
    ]

    /// Keys whose values are secrets: never echoed in an error.
    static let secretKeys: Set<String> = ["open-meteo-api-key", "password"]

    /// Loads the layers. `explicitPath` is `--config`.
    public static func load(environment: [String: String], explicitPath: String?) throws(ConfigurationError)
        -> Settings
    {
        var settings = Settings(directories: XDGDirectories(environment: environment))
        let systemPath = systemFile(environment: environment)
        if let entries = try ConfigFile.load(path: systemPath) {
            try apply(entries, path: systemPath, isSystem: true, to: &settings)
            settings.sources.append(systemPath)
        }
        let userPath: String
        if let explicit = explicitPath ?? environment["AIRLOC_CONFIG"] {
            userPath = explicit
            guard FileManager.default.fileExists(atPath: explicit) else {
                throw ConfigurationError("\(explicit): configuration file not found")
            }
        } else {
            userPath = settings.directories.config.appendingPathComponent("airloc.conf").path
        }
        // The administrator's file named again as the user's (XDG_CONFIG_HOME=/etc, as the
        // units once set, or --config /etc/airloc/airloc.conf) is read once, as the
        // administrator's: a second reading as the user's would refuse its [authorization].
        if !FileIdentity.same(userPath, systemPath), let entries = try ConfigFile.load(path: userPath) {
            try apply(entries, path: userPath, isSystem: false, to: &settings)
            settings.sources.append(userPath)
        }
        try applyEnvironment(environment, to: &settings)
        if let name = settings.sensor.humidityFrom {
            guard let section = settings.climateSensors.first(where: { $0.name == name }) else {
                throw ConfigurationError("[sensor] humidity-from = \(name): there is no [sensor.\(name)] section")
            }
            if let model = section.model, !model.quantities.contains(.humidity) {
                throw ConfigurationError(
                    "[sensor] humidity-from = \(name): [sensor.\(name)] is a \(model.displayName), which measures no "
                        + "humidity (docs/sensors.md lists the ones that do)")
            }
        }
        if settings.sensor.correction == .epaPMS, settings.sensor.humidityFrom == nil,
            let model = settings.sensor.model,
            !model.measuresHumidity
        {
            throw ConfigurationError(
                "[sensor] correction = epa-pms needs humidity: a PMS5003T's own, or a [sensor.NAME] one named by "
                    + "humidity-from; model is \(model.rawValue)")
        }
        return settings
    }

    /// The administrator's file: /etc/airloc/airloc.conf. `AIRLOC_SYSTEM_CONFIG` moves it
    /// only for root (packaging, tests run as root): an ordinary user who could choose it
    /// would choose away the administrator's `[authorization] policy = forbid`.
    public static func systemFile(environment: [String: String]) -> String {
        if ProcessUser.isRoot, let path = environment["AIRLOC_SYSTEM_CONFIG"], !path.isEmpty { return path }
        return "/etc/airloc/airloc.conf"
    }

    /// The settings without any file: defaults, then the environment (for `doctor`,
    /// which reports a broken file and checks the rest).
    public static func defaults(environment: [String: String]) -> Settings {
        var settings = Settings(directories: XDGDirectories(environment: environment))
        try? applyEnvironment(environment, to: &settings)
        return settings
    }

    static func apply(_ entries: [ConfigFile.Entry], path: String, isSystem: Bool, to settings: inout Settings)
        throws(ConfigurationError)
    {
        // The manual location is one thing: coordinates (both) or a place, per file; a
        // later file's choice replaces an earlier file's.
        var manual: [String: Int] = [:]
        for entry in entries
        where entry.section == "location" && ["latitude", "longitude", "place"].contains(entry.key) {
            manual[entry.key] = entry.line
        }
        if let line = manual["latitude"] ?? manual["longitude"],
            (manual["latitude"] == nil) != (manual["longitude"] == nil)
        {
            let (given, missing) = manual["latitude"] != nil ? ("latitude", "longitude") : ("longitude", "latitude")
            throw ConfigurationError("\(path):\(line): [location] \(given) without \(missing): give both, or a place")
        }
        if let place = manual["place"], let coordinates = manual["latitude"] {
            throw ConfigurationError(
                "\(path):\(max(place, coordinates)): [location] has both latitude/longitude and place; keep one")
        }
        if let line = manual["place"] ?? manual["latitude"] {
            settings.manualPlace = nil
            settings.manualLatitude = nil
            settings.manualLongitude = nil
            settings.manualOrigin = "\(path):\(line)"
        }
        for entry in entries {
            let at = "\(path):\(entry.line)"
            let keys = ConfigurationKey.all.filter { $0.section == entry.section }
            guard !entry.section.isEmpty else {
                throw ConfigurationError(
                    "\(at): '\(entry.key)' comes before any section: put it under its section, e.g. "
                        + "[\(ConfigurationKey.all.first { $0.name == entry.key }?.section ?? "location")]")
            }
            if entry.section.hasPrefix("sensor.") {
                try ClimateSensorKey.apply(
                    section: entry.section, key: entry.key, value: entry.value.trimmingCharacters(in: .whitespaces),
                    at: at, to: &settings)
                continue
            }
            if entry.section.hasPrefix("upload.") {
                try UploadKey.apply(
                    section: entry.section, key: entry.key, value: entry.value.trimmingCharacters(in: .whitespaces),
                    at: at, to: &settings)
                continue
            }
            guard !keys.isEmpty else {
                let hint = suggestion(
                    for: entry.section, among: ConfigurationKey.sections + ["upload.NAME", "sensor.NAME"]
                ).map {
                    " (did you mean [\($0)]?)"
                }
                throw ConfigurationError("\(at): unknown section [\(entry.section)]\(hint ?? "")")
            }
            guard let key = keys.first(where: { $0.name == entry.key }) else {
                let hint = suggestion(for: entry.key, among: keys.map(\.name)).map { " (did you mean '\($0)'?)" }
                throw ConfigurationError("\(at): unknown key '\(entry.key)' in [\(entry.section)]\(hint ?? "")")
            }
            if entry.section == "authorization" && !isSystem {
                throw ConfigurationError(
                    "\(at): [authorization] is the administrator's setting; it is read only from /etc/airloc/airloc.conf"
                )
            }
            if secretKeys.contains(key.name) { settings.secretSources.append(at) }
            guard key.apply(&settings, entry.value.trimmingCharacters(in: .whitespaces)) else {
                let shown = secretKeys.contains(key.name) ? "" : " '\(CredentialText.masked(entry.value))'"
                throw ConfigurationError("\(at): invalid value\(shown) for \(entry.key): expected \(key.expected)")
            }
        }
    }

    /// Sets `section`/`key` to `value` as a file line would; false when the key is
    /// unknown or the value has the wrong form.
    public static func set(_ section: String, _ key: String, to value: String, in settings: inout Settings) -> Bool {
        guard let key = ConfigurationKey.all.first(where: { $0.section == section && $0.name == key }) else {
            return false
        }
        return key.apply(&settings, value.trimmingCharacters(in: .whitespaces))
    }

    static func applyEnvironment(_ environment: [String: String], to settings: inout Settings)
        throws(ConfigurationError)
    {
        if let key = environment["AIRLOC_OPEN_METEO_API_KEY"], !key.isEmpty {
            guard set("services", "open-meteo-api-key", to: key, in: &settings) else {
                throw ConfigurationError("AIRLOC_OPEN_METEO_API_KEY: not an API key (letters, digits, - and _)")
            }
        }
        if let url = environment["AIRLOC_MQTT_URL"], !url.isEmpty {
            guard set("mqtt", "url", to: url, in: &settings) else {
                throw ConfigurationError(
                    "AIRLOC_MQTT_URL='\(CredentialText.masked(url))': expected mqtt://host[:port] or mqtts://host[:port]"
                )
            }
        }
        if let device = environment["AIRLOC_SENSOR_DEVICE"], !device.isEmpty {
            guard set("sensor", "device", to: device, in: &settings) else {
                throw ConfigurationError(
                    "AIRLOC_SENSOR_DEVICE='\(device.prefix(80))': expected a device path (/dev/...)")
            }
        }
        if let broker = environment["AIRLOC_COLLECT_BROKER"], !broker.isEmpty {
            guard set("collect", "broker", to: broker, in: &settings) else {
                throw ConfigurationError(
                    "AIRLOC_COLLECT_BROKER='\(CredentialText.masked(broker))': expected mqtt://host[:port] or mqtts://host[:port]"
                )
            }
        }
        if let database = environment["AIRLOC_COLLECT_DATABASE"], !database.isEmpty {
            settings.collect.database = database
        }
        if let database = environment["AIRLOC_LOG_DATABASE"], !database.isEmpty {
            settings.logDatabasePath = database
        }
        if let gpsd = environment["AIRLOC_GPSD"], !gpsd.isEmpty {
            settings.gpsd = try parseGPSD(gpsd, origin: "AIRLOC_GPSD")
        }
        for (variable, key) in environmentURLs {
            guard let value = environment[variable], !value.isEmpty else { continue }
            guard set("services", key, to: value, in: &settings) else {
                throw ConfigurationError(
                    "\(variable)='\(CredentialText.masked(value))': expected an http(s) base URL such as http://127.0.0.1:8080"
                )
            }
        }
    }

    /// "gpsd, ip, manual" → the list; nil when a name is unknown or repeated, or the list is empty.
    public static func parseProviders(_ text: String) -> [Settings.ProviderName]? {
        let names = text.split(whereSeparator: { $0 == "," || $0 == " " }).map {
            Settings.ProviderName(rawValue: String($0))
        }
        guard !names.isEmpty, !names.contains(nil) else { return nil }
        let list = names.compactMap { $0 }
        return Set(list).count == list.count ? list : nil
    }

    /// "6h", "30m", "90s" or plain seconds, up to a week.
    public static func parseDuration(_ text: String, maximum: Double = 7 * 86_400) -> Double? {
        let factors: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var digits = Substring(text)
        var factor = 1.0
        if let last = text.last, let unit = factors[last] {
            digits = text.dropLast()
            factor = unit
        }
        guard let value = Double(digits), value.isFinite, value >= 0, value * factor <= maximum else { return nil }
        return value * factor
    }

    /// A retention: "365d", "12h", "90m", "30s" or plain seconds, up to 100 years.
    public static func parseRetention(_ text: String) -> Double? { parseDuration(text, maximum: 100 * 365 * 86_400) }

    /// "host:port", "host" or "[::1]:2947"; `origin` names where it came from in errors.
    public static func parseGPSD(_ text: String, origin: String) throws(ConfigurationError) -> GPSDProvider.Options {
        var host = text
        var port = 2947
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.hasPrefix(":") {
                guard let value = Int(rest.dropFirst()), (1...65535).contains(value) else {
                    throw ConfigurationError("\(origin)='\(text)': expected host:port with a port 1-65535")
                }
                port = value
            }
        } else if let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon {
            host = String(text[..<colon])
            guard let value = Int(text[text.index(after: colon)...]), (1...65535).contains(value) else {
                throw ConfigurationError("\(origin)='\(text)': expected host:port with a port 1-65535")
            }
            port = value
        }
        guard !host.isEmpty, !host.contains(" ") else {
            throw ConfigurationError("\(origin)='\(text)': expected host:port")
        }
        return GPSDProvider.Options(host: host, port: port)
    }
}
