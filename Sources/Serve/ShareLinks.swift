import Airloc
import Collector
import Foundation
import Geo
import Platform

/// What `airloc serve share` says of the fleet page's share links: their URL, their JSON
/// (schema `airloc.share/1`) and their table.
///
/// Contract: the URL is `[serve] listen`'s (the machine's name in place of an unspecified
/// address) with `/?share=TOKEN`; the token appears in nothing else, and never in
/// `--list`, which cannot know it.
public struct ShareLinks: Sendable {
    /// One link as `--json` prints it.
    public struct Document: Encodable, Sendable {
        /// `airloc.share/1`.
        public var schema = "airloc.share/1"
        /// The link's id (what `--revoke` takes).
        public var id: String
        /// The device it shows.
        public var deviceID: String
        /// Its window's start, ISO 8601.
        public var since: String
        /// Its window's end (not included).
        public var until: String
        /// When it stops working (nil: never).
        public var expires: String?
        /// When it was made.
        public var created: String
        /// `active`, `expired` or `revoked`.
        public var state: String
        /// The page's URL with the token: only when it was just made.
        public var url: String?
    }

    let settings: Settings
    let now: Date

    /// The links of `settings`' collector database, as of `now`.
    public init(settings: Settings, now: Date) {
        self.settings = settings
        self.now = now
    }

    /// The database, writable (a link is stored and revoked there), at a schema with links.
    public func database() throws(ServiceFailure) -> FleetDatabase {
        let fleet: FleetDatabase
        do { fleet = try FleetDatabase(settings: settings.collect, size: 1, writable: true) } catch {
            throw ServiceFailure(service: "serve", kind: .configuration, message: error.description)
        }
        try DeviceServer.schema(fleet)
        return fleet
    }

    /// The page's URL for `token`.
    public func url(token: String) -> String {
        var serve = settings.serve
        if serve.host == "0.0.0.0" || serve.host == "::" {
            serve.host = ProcessInfo.processInfo.hostName
        }
        return "http://\(serve.listen)/?share=\(token)"
    }

    /// `--expires`: a time, or a duration ahead of now (`7d`, `12h`).
    public func expiry(_ text: String) -> Date? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        if let unit = text.last.flatMap({ units[$0] }), let count = Double(text.dropLast()), count.isFinite, count > 0 {
            return now.addingTimeInterval(count * unit)
        }
        return UTCTime.parse(text)
    }

    /// `link` as `--json` prints it.
    public func document(_ link: ShareLink) -> Document {
        Document(
            id: link.id, deviceID: link.deviceID, since: UTCTime.iso8601(link.since),
            until: UTCTime.iso8601(link.until), expires: link.expires.map(UTCTime.iso8601),
            created: UTCTime.iso8601(link.created), state: link.state(at: now))
    }

    /// `--list`'s table.
    public func table(_ links: [ShareLink]) -> String {
        guard !links.isEmpty else { return "no share links: `airloc serve share DEVICE --since T` makes one\n" }
        return links.map { link in
            let document = document(link)
            return "\(link.id)  \(document.state.padding(toLength: 8, withPad: " ", startingAt: 0))  \(link.deviceID)  "
                + "\(document.since) to \(document.until)  expires \(document.expires ?? "never")"
        }.joined(separator: "\n") + "\n"
    }
}
