import Foundation
import Geo
import HTTPService
import Platform

/// What the device's page and the fleet's page answer alike: the refusals of the access
/// rules, the headers every answer carries, and the shapes of their documents.
///
/// Contract: a refusal is 405 (with `Allow`) for a method other than GET and HEAD, 431 for
/// a head over ``DeviceRoutes/maxHeadBytes``, 401 (with a Basic challenge) without the
/// password when one is asked; documents are `no-store`; an error is
/// `{"error": "…"}` with its reason.
enum ServedReplies {
    /// 405 or 431 for what no path answers, or nil.
    static func refusal(_ request: ServedRequest) -> ServedReply? {
        guard request.method == "GET" || request.method == "HEAD" else {
            var reply = ServedReply(status: 405, text: "only GET and HEAD\n")
            reply.headers.append(("Allow", "GET, HEAD"))
            return reply
        }
        guard request.headBytes <= DeviceRoutes.maxHeadBytes else {
            return ServedReply(status: 431, text: "request head over \(DeviceRoutes.maxHeadBytes) bytes\n")
        }
        return nil
    }

    /// 401 when `password` is asked and the request does not carry it, or nil; 429 while
    /// the client's address sent too many wrong passwords (``PasswordGate``).
    static func unauthorized(_ request: ServedRequest, password: String?, gate: PasswordGate, now: Date)
        -> ServedReply?
    {
        guard let password else { return nil }
        if let wait = gate.refusal(of: request.client, at: now) { return tooManyWrong(wait) }
        let given = request.headers["authorization"]
        guard !DeviceRoutes.authorized(given, password: password) else { return nil }
        // A first request without any password is how every browser starts: not a guess.
        if given != nil { gate.wrong(from: request.client, at: now) }
        var reply = ServedReply(status: 401, text: "this page needs the password of [serve] password-file\n")
        reply.headers.append(("WWW-Authenticate", "Basic realm=\"airloc\", charset=\"UTF-8\""))
        return reply
    }

    /// 429: too many wrong passwords (or share tokens) from this client; `wait` seconds left.
    static func tooManyWrong(_ wait: Int) -> ServedReply {
        var reply = ServedReply(status: 429, text: "too many wrong passwords from this address; try again later\n")
        reply.headers.append(("Retry-After", "\(wait)"))
        return reply
    }

    /// A page's answer, with a link to the next page of its range when there is one (the
    /// `next` member of the document, and a `Link` header).
    static func paged(_ reply: ServedReply, next: String?) -> ServedReply {
        guard let next else { return reply }
        var paged = reply
        paged.headers.append(("Link", "<\(next)>; rel=\"next\""))
        return paged
    }

    /// The path of the page of devices after `device`.
    static func nextPage(_ path: String, after device: String) -> String {
        path + "?after=" + (device.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? device)
    }

    /// The path of the page after the one that ends at `end`, of `path` with `arguments`.
    static func nextPage(_ path: String, end: Date, arguments: [String: String]) -> String {
        var query = arguments.filter { $0.key != "since" }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let whole = end.timeIntervalSince1970 == end.timeIntervalSince1970.rounded(.down)
        query.insert(("since", whole ? UTCTime.iso8601Seconds(end) : UTCTime.iso8601(end)), at: 0)
        let allowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+"))
        return path + "?"
            + query.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0.1)" }
            .joined(separator: "&")
    }

    /// The headers of every answer: no sniffing, the page's own origin (and the tile host),
    /// no referrer (a share link's token stays in its page).
    static func headers(tileOrigin: String?) -> [(String, String)] {
        let tiles = tileOrigin.map { " " + $0 } ?? ""
        return [
            ("X-Content-Type-Options", "nosniff"),
            ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:\(tiles); frame-ancestors 'none'"),
            ("Referrer-Policy", "no-referrer"),
        ]
    }

    static func html(_ text: String) -> ServedReply {
        var reply = ServedReply(status: 200, contentType: "text/html; charset=utf-8", text: text)
        reply.headers.append(("Cache-Control", "no-store"))
        return reply
    }

    static func json(_ text: String) -> ServedReply {
        var reply = ServedReply(status: 200, contentType: "application/json", text: text)
        reply.headers.append(("Cache-Control", "no-store"))
        return reply
    }

    /// `status` with `{"error": why}`.
    static func error(_ why: String, status: Int = 404) -> ServedReply {
        ServedReply(status: status, contentType: "application/json", text: "{\"error\":\(quoted(why))}\n")
    }

    /// `text` as a JSON string.
    static func quoted(_ text: String) -> String { JSONText.quoted(text) }
}
