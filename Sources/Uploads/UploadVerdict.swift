import Foundation
import Web

/// What a server's answer means for an upload: go on, skip the rows it will never take,
/// try again later, or stop.
///
/// Contract: 2xx accepted. 401 and 403 (credentials), 404 (no such endpoint or box) and
/// Traccar's 400 (a device id it does not know) stop the upload: retrying cannot fix
/// them. 408, 429 and 5xx, and no answer at all, are tried again, after the server's
/// `Retry-After` when it sent one (seconds or an HTTP date). Any other 4xx refuses the
/// rows themselves: they are skipped and counted, so one row a server will never take
/// cannot hold back every row after it.
public enum UploadVerdict: Sendable, Equatable {
    case accepted
    case rejected(String)
    case retry(after: Duration?, String)
    case refused(String)

    /// What `answer` from a server of `type` means at `now`.
    public static func judge(_ answer: HTTPAnswer, type: String, now: Date) -> UploadVerdict {
        let status = answer.status
        let said = String(decoding: answer.body.prefix(200), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let detail = said.isEmpty ? "" : ": \(said)"
        switch status {
        case 200...299: return .accepted
        case 401, 403: return .refused("the server refused the credentials (HTTP \(status))\(detail)")
        case 404: return .refused("no such endpoint or box (HTTP 404): check url and box\(detail)")
        case 400 where type == "traccar":
            return .refused("Traccar does not know this device id (HTTP 400): add it in Traccar, or set id")
        case 408, 429, 500...599:
            return .retry(after: retryAfter(answer.retryAfter, now: now), "HTTP \(status)\(detail)")
        default: return .rejected("HTTP \(status)\(detail)")
        }
    }

    /// `Retry-After: 120` or `Retry-After: Wed, 21 Oct 2026 07:28:00 GMT`.
    static func retryAfter(_ text: String?, now: Date) -> Duration? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if let seconds = Int(text), seconds >= 0 { return .seconds(seconds) }
        // An HTTP date is 29 printable ASCII characters. Foundation's DateFormatter stops the
        // process on some other text (fuzzing found one from a server's header), so nothing
        // else reaches it.
        guard text.utf8.count <= 40, text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = format.date(from: text) else { return nil }
        return .seconds(max(0, Int(date.timeIntervalSince(now).rounded(.up))))
    }
}
