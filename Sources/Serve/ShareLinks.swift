import Airloc
import FleetStore
import Foundation
import Geo
import Platform
import Settings

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

    /// What `serve share` was asked.
    public enum Asked: Sendable, Equatable {
        /// `--list`.
        case list
        /// `--revoke ID`.
        case revoke(String)
        /// `DEVICE --since T [--until T] [--expires T]`, as written.
        case make(device: String, since: String, until: String?, expires: String?)
    }

    /// Why it was not done, and what kind of failure that is (the exit status).
    public struct Failure: Error, Sendable {
        /// usage (64), an unknown device or link (65), configuration (78), the database (69).
        public enum Kind: Sendable, Hashable { case usage, unknown, configuration, unavailable }
        /// Its kind.
        public var kind: Kind
        /// What to say.
        public var message: String
    }

    let settings: Settings
    let now: Date

    /// The links of `settings`' collector database, as of `now` (whole seconds: a window
    /// of "1h" reads as it is stored).
    public init(settings: Settings, now: Date = Date()) {
        self.settings = settings
        self.now = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
    }

    /// Does what was asked: what to print on stdout, and a note for stderr.
    public func perform(_ asked: Asked, json: Bool) throws(Failure) -> (out: String, note: String?) {
        let fleet: FleetDatabase
        do { fleet = try database() } catch {
            throw Failure(kind: error.kind == .configuration ? .configuration : .unavailable, message: error.message)
        }
        func ask<T>(_ body: () throws(DatabaseError) -> T) throws(Failure) -> T {
            do { return try body() } catch {
                throw Failure(
                    kind: error.isConfiguration ? .configuration : .unavailable,
                    message: "\(fleet.name): \(error.description)")
            }
        }
        switch asked {
        case .list:
            let links = try ask { () throws(DatabaseError) in try fleet.shares() }
            // --json: one document a line, as `locate --watch` prints them.
            return (json ? links.map { JSONDocument.encode(document($0), pretty: false) }.joined() : table(links), nil)
        case .revoke(let id):
            guard try ask({ () throws(DatabaseError) in try fleet.revokeShare(id: id, now: now) }) else {
                throw Failure(kind: .unknown, message: "no active share link \(id): `airloc serve share --list`")
            }
            return ("", "share link \(id) revoked")
        case .make(let device, let sinceText, let untilText, let expiresText):
            let since = try time(sinceText, option: "--since")
            let until = try untilText.map { text throws(Failure) in try time(text, option: "--until") } ?? now
            guard since < until else {
                throw Failure(kind: .usage, message: "--since is not before --until: the link would show nothing")
            }
            let expires = try expiresText.map { text throws(Failure) in
                guard let date = expiry(text), date > now else {
                    throw Failure(
                        kind: .usage,
                        message: "invalid --expires '\(text.prefix(40))': a time ahead (2026-12-31T00:00Z) or a "
                            + "duration (7d)")
                }
                return date
            }
            guard try ask({ () throws(DatabaseError) in try fleet.knows(device) }) else {
                throw Failure(
                    kind: .unknown,
                    message: "no device '\(device)' in \(fleet.name): `airloc collect status` lists them")
            }
            let made = try ask { () throws(DatabaseError) in
                try fleet.createShare(device: device, since: since, until: until, expires: expires, now: now)
            }
            var document = document(made.link)
            document.url = url(token: made.token)
            return json
                ? (JSONDocument.encode(document), nil)
                : (document.url! + "\n", "share link \(made.link.id) made; its URL is shown only now")
        }
    }

    /// `--since` or `--until`: ISO 8601, or an age back from now (`24h`).
    func time(_ text: String, option: String) throws(Failure) -> Date {
        guard let date = TimeArgument.past(text, now: now) else {
            throw Failure(
                kind: .usage, message: "invalid \(option) '\(text.prefix(40))': expected \(TimeArgument.expected)")
        }
        return date
    }

    /// The database, writable (a link is stored and revoked there), at a schema with links.
    func database() throws(ServiceFailure) -> FleetDatabase {
        let fleet: FleetDatabase
        do { fleet = try FleetDatabase(settings: settings.collect, size: 1, writable: true) } catch {
            throw ServiceFailure(service: .serve, kind: .configuration, message: error.description)
        }
        try DeviceServer.schema(fleet)
        return fleet
    }

    /// The page's URL for `token`.
    func url(token: String) -> String {
        var serve = settings.serve
        if serve.host == "0.0.0.0" || serve.host == "::" {
            serve.host = ProcessInfo.processInfo.hostName
        }
        return "http://\(serve.listen)/?share=\(token)"
    }

    /// `--expires`: a time, or a duration ahead of now (`7d`, `12h`).
    func expiry(_ text: String) -> Date? { TimeArgument.ahead(text, now: now) }

    /// `link` as `--json` prints it.
    func document(_ link: ShareLink) -> Document {
        Document(
            id: link.id, deviceID: link.deviceID, since: UTCTime.iso8601(link.since),
            until: UTCTime.iso8601(link.until), expires: link.expires.map(UTCTime.iso8601),
            created: UTCTime.iso8601(link.created), state: link.state(at: now))
    }

    /// `--list`'s table.
    func table(_ links: [ShareLink]) -> String {
        guard !links.isEmpty else { return "no share links: `airloc serve share DEVICE --since T` makes one\n" }
        return links.map { link in
            let document = document(link)
            return "\(link.id)  \(document.state.padding(toLength: 8, withPad: " ", startingAt: 0))  \(link.deviceID)  "
                + "\(document.since) to \(document.until)  expires \(document.expires ?? "never")"
        }.joined(separator: "\n") + "\n"
    }
}
