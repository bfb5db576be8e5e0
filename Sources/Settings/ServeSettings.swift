import FleetWire
import Foundation

/// `[serve]`: the device's own page, API and metrics (`airloc serve`, docs/serve.md).
///
/// Contract: it listens on loopback (127.0.0.1:8642) unless told otherwise; a non-loopback
/// address needs `password-file` (HTTP Basic, user `airloc`) unless `position = none`, and
/// ``refusal`` says why it would not start; every position it serves is as `position`
/// allows (`coarse`: the 0.01° grid); no `tiles` means no map tiles and nothing fetched
/// from anywhere by the page.
public struct ServeSettings: Sendable, Equatable {
    /// What the page shows: this device's logbook, or the fleet in the collector's database.
    public enum Source: String, Sendable, CaseIterable {
        /// The device's own page (`[log] database`).
        case logbook
        /// The fleet page over `[collect] database` (docs/fleet.md).
        case collector
    }

    /// What it serves.
    public var source = Source.logbook
    /// Seconds after its latest row a device is listed as stale on the fleet page.
    public var staleAfter = 600.0
    /// The address to bind: an IPv4 or IPv6 literal.
    public var host = "127.0.0.1"
    /// The port (0: any free one, for tests).
    public var port = 8642
    /// How much of the position the page, the API and the metrics show.
    public var position = MQTTSettings.Position.exact
    /// A file (0600) holding the password for HTTP Basic, user `airloc`.
    public var passwordFile: String?
    /// A tile URL template (`https://tile.openstreetmap.org/{z}/{x}/{y}.png`).
    public var tiles: String?
    /// The grid a coarse position is rounded to, in degrees.
    public static let coarseGrid = 0.01

    /// The defaults.
    public init() {}

    /// `listen`'s value as `host:port` (`[::1]:8642` for IPv6), or nil when it is not one.
    public static func listen(_ text: String) -> (host: String, port: Int)? {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return nil
            }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
            guard host.contains(":") else { return nil }
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
            guard !host.contains(":") else { return nil }
        }
        guard let number = Int(port), (0...65_535).contains(number), isAddress(String(host)) else { return nil }
        return (String(host), number)
    }

    /// An IPv4 or IPv6 literal.
    static func isAddress(_ host: String) -> Bool {
        if host.contains(":") {
            return !host.isEmpty && host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in Int(part).map { (0...255).contains($0) } == true }
    }

    /// Only this machine can reach `host` (127.0.0.0/8, ::1).
    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }

    /// `listen` as written back (`127.0.0.1:8642`, `[::1]:8642`).
    public var listen: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Why `serve` must not start as configured, or nil: anyone on the network could
    /// read where the device is.
    public var refusal: String? {
        guard !isLoopback, passwordFile == nil, position != .none else { return nil }
        return "[serve] listen = \(listen) is reachable from the network, and [serve] has no password-file: "
            + "anyone there could see where this device is. Set password-file (HTTP Basic, user airloc), "
            + "listen on 127.0.0.1, or set position = none"
    }

    /// The host of `tiles` (for the page's Content-Security-Policy), or nil.
    public var tileOrigin: String? {
        guard let tiles, let url = URL(string: tiles.replacingOccurrences(of: "{s}", with: "a")),
            let scheme = url.scheme, let host = url.host
        else { return nil }
        return
            "\(scheme)://\(tiles.contains("{s}") ? "*." + host.split(separator: ".").dropFirst().joined(separator: ".") : host)"
            + (url.port.map { ":\($0)" } ?? "")
    }
}
