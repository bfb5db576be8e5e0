import Foundation

/// Builds request URLs from a configurable base URL, the API's fixed path and query
/// parameters.
///
/// Contract: the base URL supplies scheme, host and port (and an optional path prefix,
/// for reverse proxies); the path and query are the real API's. Every parameter value
/// is percent-encoded with the RFC 3986 unreserved set, so no value can add a
/// parameter, a fragment or a path segment.
public struct ServiceURL: Sendable, Hashable {
    /// The service's base URL (scheme, host, port, path prefix).
    public var base: URL

    /// A service at `base`.
    public init(base: URL) { self.base = base }

    /// Parses a user-supplied base URL; only http and https with a host are accepted.
    public init?(string: String) {
        guard let url = URL(string: string.trimmingCharacters(in: .whitespaces)),
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil
        else { return nil }
        self.base = url
    }

    /// `base` + `path`, with `query` percent-encoded.
    public func url(path: String, query: [(String, String)] = []) -> URL {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += path.hasPrefix("/") ? path : "/" + path
        if !query.isEmpty {
            text += "?" + query.map { "\(ServiceURL.encode($0.0))=\(ServiceURL.encode($0.1))" }.joined(separator: "&")
        }
        // Every piece is either the configured base (validated) or percent-encoded here.
        return URL(string: text)!
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Percent-encodes everything outside RFC 3986's unreserved set (also "/", "?", "#",
    /// "&", "=", "+" and "%").
    public static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
