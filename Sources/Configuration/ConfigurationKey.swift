import AirQuality
import FleetWire
import Foundation
import Location
import Settings
import Web

/// One key of airloc.conf: where it lives, what form its value takes, and which setting
/// it sets — declared once, so the parser, the error messages and the documentation
/// check (`ConfigurationTests`) cannot disagree about a key or its range.
///
/// Contract: `apply` sets the value and returns true, or returns false and leaves the
/// settings alone when the value does not have the form `expected` describes.
public struct ConfigurationKey: Sendable {
    /// The section (`log`, `mqtt`).
    public let section: String
    /// The key.
    public let name: String
    /// The form of a valid value, in words ("seconds, 0.1-3600").
    public let expected: String
    let apply: @Sendable (inout Settings, String) -> Bool

    init(
        _ section: String, _ name: String, _ expected: String,
        _ apply: @escaping @Sendable (inout Settings, String) -> Bool
    ) {
        self.section = section
        self.name = name
        self.expected = expected
        self.apply = apply
    }

    /// An MQTT client id as airloc accepts one: letters, digits, `-` and `_`.
    static func isClientID(_ value: String) -> Bool {
        value.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_")).contains($0)
        }
    }

    /// A number in `range`, described as "`unit`, low-high" (or "low to high" when the
    /// range has a sign).
    static func number(
        _ section: String, _ name: String, _ unit: String, _ range: ClosedRange<Double>, note: String = "",
        _ set: @escaping @Sendable (inout Settings, Double) -> Void
    ) -> ConfigurationKey {
        let low = format(range.lowerBound)
        let high = format(range.upperBound)
        let bounds = range.lowerBound < 0 ? "\(low) to \(high)" : "\(low)-\(high)"
        return ConfigurationKey(section, name, "\(unit), \(bounds)\(note)") { settings, value in
            guard let number = Double(value), number.isFinite, range.contains(number) else { return false }
            set(&settings, number)
            return true
        }
    }

    /// One of `choices` (an enum's raw values), described as "a, b or c".
    static func choice<T: RawRepresentable & CaseIterable & Sendable>(
        _ section: String, _ name: String, _ type: T.Type, extra: [String] = [],
        _ set: @escaping @Sendable (inout Settings, T?) -> Void
    ) -> ConfigurationKey where T.RawValue == String {
        let names = extra + type.allCases.map(\.rawValue)
        return ConfigurationKey(section, name, listed(names)) { settings, value in
            if extra.contains(value) {
                set(&settings, nil)
                return true
            }
            guard let choice = T(rawValue: value) else { return false }
            set(&settings, choice)
            return true
        }
    }

    /// A value `parse` understands.
    static func parsed<T>(
        _ section: String, _ name: String, _ expected: String, _ parse: @escaping @Sendable (String) -> T?,
        set: @escaping @Sendable (inout Settings, T) -> Void
    ) -> ConfigurationKey {
        ConfigurationKey(section, name, expected) { settings, value in
            guard let parsed = parse(value) else { return false }
            set(&settings, parsed)
            return true
        }
    }

    /// Text of 1-200 characters that `valid` accepts.
    static func text(
        _ section: String, _ name: String, _ expected: String, valid: @escaping @Sendable (String) -> Bool,
        set: @escaping @Sendable (inout Settings, String) -> Void
    ) -> ConfigurationKey {
        ConfigurationKey(section, name, expected) { settings, value in
            guard !value.isEmpty, value.count <= 200, valid(value) else { return false }
            set(&settings, value)
            return true
        }
    }

    static func url(_ name: String, _ set: @escaping @Sendable (inout Settings, ServiceURL) -> Void) -> ConfigurationKey
    {
        ConfigurationKey("services", name, "an http(s) base URL") { settings, value in
            guard let url = ServiceURL(string: value) else { return false }
            set(&settings, url)
            return true
        }
    }

    static func format(_ number: Double) -> String {
        number == number.rounded() ? String(Int(number)) : String(number)
    }

    static func listed(_ names: [String]) -> String {
        names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    /// Every key a configuration file may hold.
    public static let all: [ConfigurationKey] =
        [
            ConfigurationKey("gpsd", "host", "a host name or address") { settings, value in
                guard !value.isEmpty, !value.contains(" ") else { return false }
                settings.gpsd.host = value
                return true
            },
            ConfigurationKey("gpsd", "port", "a port number 1-65535") { settings, value in
                guard let port = Int(value), (1...65535).contains(port) else { return false }
                settings.gpsd.port = port
                return true
            },
            number("gpsd", "timeout", "seconds", 0.1...3600) { $0.gpsdTimeout = $1 },
            number("gpsd", "stale-after", "seconds", 1...3600) { $0.gpsdStaleAfter = $1 },
            number("gpsd", "lost-after", "seconds", 1...86400) { $0.gpsdLostAfter = $1 },
            url("air-quality-url") { $0.airQualityURL = $1 },
            url("geocoding-url") { $0.geocodingURL = $1 },
            url("archive-url") { $0.archiveURL = $1 },
            url("postal-url") { $0.postalURL = $1 },
            url("ip-url") { $0.ipURL = $1 },
            number("services", "timeout", "seconds", 0.1...300) { $0.serviceTimeout = $1 },
            number("services", "deadline", "seconds", 1...600) { $0.serviceDeadline = $1 },
            choice("services", "ip-service", IPService.self) { settings, service in
                if let service { settings.ipService = service }
            },
            text("services", "open-meteo-api-key", "an Open-Meteo API key (letters, digits, - and _)") { value in
                let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_"))
                return value.unicodeScalars.allSatisfy(allowed.contains)
            } set: {
                $0.openMeteoAPIKey = $1
            },
            parsed(
                "cache", "max-stale", "a duration: seconds, or with m or h (e.g. 6h); 0 turns the offline fallback off",
                { ConfigurationFiles.parseDuration($0) }
            ) { $0.maxStale = $1 },
            number("location", "latitude", "degrees", -90...90) { $0.manualLatitude = $1 },
            number("location", "longitude", "degrees", -180...180) { $0.manualLongitude = $1 },
            text("location", "place", "a place name, optionally with ', country' (e.g. Paris, FR)") { _ in
                true
            } set: {
                $0.manualPlace = $1
            },
            parsed(
                "location", "providers", "a list of gpsd, ip, manual in the order to try them (e.g. gpsd, manual)",
                ConfigurationFiles.parseProviders
            ) { $0.providers = $1 },
            number("privacy", "outbound-precision", "degrees", 0.0001...1, note: " (e.g. 0.01 ≈ 1 km)") {
                $0.outboundPrecision = $1
            },
            choice("authorization", "policy", AuthorizationPolicy.Mode.self) { settings, mode in
                if let mode { settings.policy.mode = mode }
            },
            choice("authorization", "max-accuracy", AccuracyAuthorization.self) { settings, accuracy in
                if let accuracy { settings.policy.maximumAccuracy = accuracy }
            },
            number("log", "track-interval", "seconds", 0.1...86_400) { $0.logTrigger.trackInterval = $1 },
            number("log", "track-distance", "metres", 0...100_000) { $0.logTrigger.trackDistance = $1 },
            number("log", "max-error", "metres", 1...1_000_000) { $0.logTrigger.maxError = $1 },
            number("log", "segment-gap", "seconds", 1...86_400) { $0.logTrigger.segmentGap = $1 },
            number("log", "air-distance", "metres", 100...1_000_000) { $0.logTrigger.airDistance = $1 },
            text("log", "database", "a file path") {
                !$0.isEmpty && !$0.contains("\0")
            } set: {
                $0.logDatabasePath = $1
            },
            parsed(
                "log", "keep", "a duration with d, h, m or s (e.g. 365d); 0 keeps everything",
                ConfigurationFiles.parseRetention
            ) { $0.logKeep = $1 > 0 ? $1 : nil },
        ]
        + brokerKeys("mqtt", url: "url", passwordFile: "password-file", inlinePassword: true) { $1(&$0.mqtt.broker) }
        + [
            text("mqtt", "device-id", "1-64 letters, digits, - and _ (e.g. pi-4)", valid: DeviceIdentity.isValidName) {
                $0.mqtt.deviceID = $1
            },
            text("mqtt", "topic-prefix", "a topic without wildcards (e.g. airloc/pi-7)") { value in
                !value.contains("#") && !value.contains("+") && !value.hasSuffix("/")
            } set: {
                $0.mqtt.topicPrefix = $1
            },
            ConfigurationKey("mqtt", "discovery", "homeassistant or off") { settings, value in
                guard value == "homeassistant" || value == "off" else { return false }
                settings.mqtt.discovery = value == "homeassistant"
                return true
            },
            text("mqtt", "discovery-prefix", "a topic (Home Assistant's discovery prefix)") {
                !$0.contains("#")
            } set: {
                $0.mqtt.discoveryPrefix = $1
            },
            choice("mqtt", "position", MQTTSettings.Position.self) { settings, position in
                if let position { settings.mqtt.position = position }
            },
            choice("display", "color", Settings.ColorChoice.self) { settings, color in
                if let color { settings.color = color }
            },
            choice("display", "units", TemperatureUnit.self, extra: ["auto"]) { $0.units = $1 },
            choice("display", "scale", AQIScale.self) { settings, scale in
                if let scale { settings.scale = scale }
            },
        ] + sensorKeys + collectKeys + serveKeys

    /// Each key's default as a person writes it ("section.name" → value; "none" when
    /// unset), for airloc.conf(5). A test checks it against ``all`` and against the values
    /// config/airloc.conf gives.
    public static let defaults: [String: String] = [
        "gpsd.host": "localhost", "gpsd.port": "2947", "gpsd.timeout": "10", "gpsd.stale-after": "5",
        "gpsd.lost-after": "30", "services.air-quality-url": "https://air-quality-api.open-meteo.com",
        "services.geocoding-url": "https://geocoding-api.open-meteo.com",
        "services.archive-url": "https://archive-api.open-meteo.com",
        "services.postal-url": "https://api.zippopotam.us",
        "services.ip-url": "the ip-service's own endpoint", "services.timeout": "10", "services.deadline": "15",
        "services.ip-service": "ipwho.is", "services.open-meteo-api-key": "none", "cache.max-stale": "6h",
        "location.latitude": "none", "location.longitude": "none", "location.place": "none",
        "location.providers": "gpsd, manual", "privacy.outbound-precision": "0.01", "authorization.policy": "ask",
        "authorization.max-accuracy": "full", "log.track-interval": "5", "log.track-distance": "10",
        "log.max-error": "100", "log.segment-gap": "60", "log.air-distance": "2000",
        "log.database": "$XDG_STATE_HOME/airloc/logbook.sqlite", "log.keep": "0", "display.color": "auto",
        "display.units": "auto", "display.scale": "us", "sensor.model": "none (no sensor)",
        "sensor.device": "/dev/airloc-pm, else /dev/ttyUSB0", "sensor.warm-up-seconds": "30",
        "sensor.sample-seconds": "10", "sensor.interval": "60", "sensor.sleep-between": "yes", "sensor.timeout": "10",
        "sensor.correction": "none", "sensor.humidity-limit": "70",
        "sensor.humidity-from": "none (the particulate sensor's own)", "mqtt.url": "none (not published)",
        "mqtt.ca-file": "none",
        "mqtt.cert-file": "none", "mqtt.key-file": "none", "mqtt.username": "none", "mqtt.password": "none",
        "mqtt.password-file": "none",
        "mqtt.device-id": "the topic prefix's last level, else a random id (state directory, device-id)",
        "mqtt.client-id": "airloc-<device id>",
        "mqtt.topic-prefix": "airloc/<device id>", "mqtt.discovery": "homeassistant",
        "mqtt.discovery-prefix": "homeassistant", "mqtt.position": "coarse (exact with end-to-end = collector)",
    ].merging(collectDefaults) { first, _ in first }.merging(serveDefaults) { first, _ in first }

    /// The sections, in the order of ``all``.
    public static var sections: [String] {
        var seen = Set<String>()
        return all.map(\.section).filter { seen.insert($0).inserted }
    }
}
