import FleetWire
import Foundation
import Settings

extension ConfigurationKey {
    /// `[mqtt] end-to-end` and `ack-timeout`, and `[collect]`, the fleet collector
    /// (docs/collector.md).
    static let collectKeys: [ConfigurationKey] =
        [
            choice("mqtt", "end-to-end", MQTTSettings.EndToEnd.self) { settings, mode in
                if let mode { settings.mqtt.endToEnd = mode }
            },
            number("mqtt", "ack-timeout", "seconds", 1...86_400) { $0.mqtt.ackTimeout = $1 },
        ]
        + brokerKeys("collect", url: "broker", passwordFile: "broker-password-file", inlinePassword: false) {
            $1(&$0.collect.broker)
        } + [
            text("collect", "database", "a libpq connection string or postgresql:// URI") {
                !$0.isEmpty && !$0.contains("\0")
            } set: {
                $0.collect.database = $1
            },
            text("collect", "password-file", "a file path (mode 0600)") {
                !$0.isEmpty
            } set: {
                $0.collect.passwordFile = $1
            },
            text("collect", "topic-prefix", "topic levels, + for the device id (e.g. airloc/+)") { value in
                !value.isEmpty && !value.contains("#") && !value.hasSuffix("/") && !value.hasPrefix("/")
            } set: {
                $0.collect.topicPrefix = $1
            },
            number("collect", "batch", "rows", 1...10_000) { $0.collect.batch = Int($1) },
            ConfigurationKey("collect", "metrics", "address:port for /metrics (127.0.0.1:9642)") { settings, value in
                guard let (host, port) = ServeSettings.listen(value) else { return false }
                (settings.collect.metricsHost, settings.collect.metricsPort) = (host, port)
                return true
            },
            parsed(
                "collect", "keep", "a duration with d, h, m or s (e.g. 400d); 0 keeps every row",
                ConfigurationFiles.parseRetention
            ) { $0.collect.keep = $1 > 0 ? $1 : nil },
            parsed(
                "collect", "keep-hourly", "a duration with d, h, m or s (e.g. 3650d); 0 keeps every hour",
                ConfigurationFiles.parseRetention
            ) { $0.collect.keepHourly = $1 > 0 ? $1 : nil },
            text("collect", "share", "a group name: letters, digits, - and _", valid: isClientID) {
                $0.collect.share = $1
            },
            number("collect", "max-message", "bytes", 1_024...16_777_216) { $0.collect.maxMessage = Int($1) },
            choice("collect", "devices", CollectSettings.Admission.self) { settings, admission in
                if let admission { settings.collect.devices = admission }
            },
        ]

    static let collectDefaults: [String: String] = [
        "mqtt.end-to-end": "broker", "mqtt.ack-timeout": "120", "collect.broker": "none",
        "collect.database": "none", "collect.password-file": "none (libpq's own: PGPASSFILE, ~/.pgpass)",
        "collect.topic-prefix": "airloc/+", "collect.client-id": "airloc-collect-<host name>",
        "collect.ca-file": "none", "collect.cert-file": "none", "collect.key-file": "none",
        "collect.username": "none", "collect.broker-password-file": "none", "collect.batch": "500",
        "collect.metrics": "none (no /metrics)", "collect.keep": "0", "collect.keep-hourly": "0",
        "collect.share": "none (this collector reads every row)", "collect.max-message": "65536",
        "collect.devices": "any",
    ]
}
