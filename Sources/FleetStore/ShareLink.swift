import Foundation
import Geo

/// A share link of the fleet page (`airloc serve share`): one device's rows in one window,
/// for whoever holds its token, without the page's password.
///
/// Contract: the token is 32 random bytes (base64url, 43 characters) and is shown once, at
/// its making; PostgreSQL keeps only its SHA-256 (`shares.token_sha256`). A link is
/// honoured while it is neither revoked nor past `expires`; a token that is malformed,
/// unknown, revoked or expired is one answer, "no such link", so an answer tells nothing
/// about other tokens.
public struct ShareLink: Sendable, Equatable {
    /// Its id (the token's hash's first 12 hex digits): what `--list` shows and `--revoke` takes.
    public var id: String
    /// The device it shows.
    public var deviceID: String
    /// The start of the window it shows.
    public var since: Date
    /// The end of that window (not included).
    public var until: Date
    /// When it stops working (nil: never).
    public var expires: Date?
    /// When it was made.
    public var created: Date
    /// When it was revoked (nil: not).
    public var revoked: Date?

    /// A link as stored.
    public init(
        id: String, deviceID: String, since: Date, until: Date, expires: Date?, created: Date, revoked: Date? = nil
    ) {
        (self.id, self.deviceID, self.since, self.until) = (id, deviceID, since, until)
        (self.expires, self.created, self.revoked) = (expires, created, revoked)
    }

    /// `active`, `expired` or `revoked`, at `now`.
    public func state(at now: Date) -> String {
        if revoked != nil { return "revoked" }
        if let expires, expires <= now { return "expired" }
        return "active"
    }

    /// A new token: 32 bytes of the system's random generator, base64url without padding.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Whether `text` has a token's shape (checked before any query is made of it).
    public static func isToken(_ text: String) -> Bool {
        text.utf8.count == 43
            && text.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                    || $0 == "_"
            }
    }
}

extension FleetDatabase {
    static let shareColumns =
        "id, device_id, extract(epoch FROM since), extract(epoch FROM until), extract(epoch FROM expires), "
        + "extract(epoch FROM created), extract(epoch FROM revoked)"

    /// Stores a link to `device`'s `[since, until)` and returns its token (shown once).
    public func createShare(device: String, since: Date, until: Date, expires: Date?, now: Date)
        throws(DatabaseError) -> (token: String, link: ShareLink)
    {
        let token = ShareLink.newToken()
        let rows = try read { database throws(DatabaseError) in
            try database.execute(
                """
                INSERT INTO shares (id, token_sha256, device_id, since, until, expires, created)
                VALUES (substr(encode(sha256(convert_to($1, 'UTF8')), 'hex'), 1, 12), sha256(convert_to($1, 'UTF8')),
                        $2, $3, $4, $5, $6)
                RETURNING \(Self.shareColumns)
                """,
                [
                    token, device, Self.timestamp(since), Self.timestamp(until), expires.map(Self.timestamp),
                    Self.timestamp(now),
                ])
        }
        guard let link = rows.first.flatMap(Self.link) else {
            throw .command(state: "XX000", message: "the new share link was not returned")
        }
        return (token, link)
    }

    /// Every link, newest first.
    public func shares() throws(DatabaseError) -> [ShareLink] {
        try read { database throws(DatabaseError) in
            try database.execute("SELECT \(Self.shareColumns) FROM shares ORDER BY created DESC, id").compactMap(
                Self.link)
        }
    }

    /// Revokes the link `id`; false when there is none (or it was revoked already).
    public func revokeShare(id: String, now: Date) throws(DatabaseError) -> Bool {
        try read { database throws(DatabaseError) in
            !(try database.execute(
                "UPDATE shares SET revoked = $2 WHERE id = $1 AND revoked IS NULL RETURNING id",
                [id, Self.timestamp(now)]
            ).isEmpty)
        }
    }

    /// The link `token` opens at `now`, or nil (malformed, unknown, revoked or expired).
    public func share(token: String, at now: Date) throws(DatabaseError) -> ShareLink? {
        guard ShareLink.isToken(token) else { return nil }
        return try read { database throws(DatabaseError) in
            try database.execute(
                """
                SELECT \(Self.shareColumns) FROM shares
                WHERE token_sha256 = sha256(convert_to($1, 'UTF8')) AND revoked IS NULL
                  AND (expires IS NULL OR expires > $2)
                """, [token, Self.timestamp(now)]
            ).first.flatMap(Self.link)
        }
    }

    static func link(_ row: [String?]) -> ShareLink? {
        guard row.count == 7, let id = row[0], let device = row[1], let since = date(row[2]),
            let until = date(row[3]), let created = date(row[5])
        else { return nil }
        return ShareLink(
            id: id, deviceID: device, since: since, until: until, expires: date(row[4]), created: created,
            revoked: date(row[6]))
    }
}
