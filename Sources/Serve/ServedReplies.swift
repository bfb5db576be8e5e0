import Foundation
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

    /// 401 when `password` is asked and the request does not carry it, or nil.
    static func unauthorized(_ request: ServedRequest, password: String?) -> ServedReply? {
        guard let password, !DeviceRoutes.authorized(request.headers["authorization"], password: password) else {
            return nil
        }
        var reply = ServedReply(status: 401, text: "this page needs the password of [serve] password-file\n")
        reply.headers.append(("WWW-Authenticate", "Basic realm=\"airloc\", charset=\"UTF-8\""))
        return reply
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
