import FleetWire
import Foundation
import Settings

extension ConfigurationKey {
    /// `[serve]`: the device's page, API and metrics (docs/serve.md).
    static let serveKeys: [ConfigurationKey] = [
        ConfigurationKey("serve", "listen", "address:port (127.0.0.1:8642, [::1]:8642, 0.0.0.0:8642)") {
            settings, value in
            guard let (host, port) = ServeSettings.listen(value) else { return false }
            (settings.serve.host, settings.serve.port) = (host, port)
            return true
        },
        choice("serve", "source", ServeSettings.Source.self) { settings, source in
            if let source { settings.serve.source = source }
        },
        parsed(
            "serve", "stale-after", "a duration: seconds, or with m, h or d (10m)",
            { ConfigurationFiles.parseDuration($0).flatMap { $0 > 0 ? $0 : nil } }
        ) {
            $0.serve.staleAfter = $1
        },
        choice("serve", "position", MQTTSettings.Position.self) { settings, position in
            if let position { settings.serve.position = position }
        },
        text("serve", "password-file", "a file path (mode 0600)") {
            !$0.isEmpty
        } set: {
            $0.serve.passwordFile = $1
        },
        text("serve", "tiles", "a tile URL template with {z}, {x} and {y} (https://…/{z}/{x}/{y}.png)") { value in
            guard let url = URL(string: value.replacingOccurrences(of: "{s}", with: "a")), url.host != nil else {
                return false
            }
            return ["http", "https"].contains(url.scheme ?? "")
                && ["{z}", "{x}", "{y}"].allSatisfy(value.contains)
        } set: {
            $0.serve.tiles = $1
        },
    ]

    static let serveDefaults: [String: String] = [
        "serve.listen": "127.0.0.1:8642", "serve.position": "exact", "serve.password-file": "none",
        "serve.tiles": "none (no map tiles, nothing fetched)", "serve.source": "logbook", "serve.stale-after": "10m",
    ]
}
