/// Why a request to a web service did not produce a usable answer.
///
/// Contract: every case names the service (as the user knows it, e.g. "Open-Meteo air
/// quality") and carries the service's own explanation when it sent one, so the CLI
/// can say what failed and whether trying again later helps (``isRetryable``).
public enum WebError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Could not connect (DNS, refused, no route, TLS).
    case unreachable(service: String, reason: String)
    /// No complete answer within the deadline.
    case timedOut(service: String, seconds: Double)
    /// HTTP 429; `reason` is the service's text ("Minutely API request limit exceeded...").
    case rateLimited(service: String, reason: String?)
    /// HTTP 4xx other than 429, with the service's `reason` when it gave one.
    case rejected(service: String, status: Int, reason: String?)
    /// HTTP 5xx.
    case serverError(service: String, status: Int, reason: String?)
    /// A 2xx answer whose body is not what the service documents (truncated, not JSON,
    /// wrong types).
    case undecodable(service: String, reason: String)
    /// The caller cancelled the request.
    case cancelled(service: String)

    /// The service that failed, as the message names it.
    public var service: String {
        switch self {
        case .unreachable(let s, _), .timedOut(let s, _), .rateLimited(let s, _), .rejected(let s, _, _),
            .serverError(let s, _, _), .undecodable(let s, _), .cancelled(let s):
            return s
        }
    }

    /// True when the same request may succeed later without any change by the user.
    public var isRetryable: Bool {
        switch self {
        case .unreachable, .timedOut, .rateLimited, .serverError: return true
        case .rejected, .undecodable, .cancelled: return false
        }
    }

    /// What failed and why, naming the service.
    public var description: String {
        switch self {
        case .unreachable(let service, let reason):
            return "cannot reach \(service) (\(reason)); check the network connection or the service URL"
        case .timedOut(let service, let seconds):
            return "\(service) did not answer within \(formatSeconds(seconds)); try again later"
        case .rateLimited(let service, let reason):
            return "\(service) refused the request because of its rate limit"
                + (reason.map { ": \($0)" } ?? "; try again later")
        case .rejected(let service, let status, let reason):
            return "\(service) rejected the request (HTTP \(status))" + (reason.map { ": \($0)" } ?? "")
        case .serverError(let service, let status, let reason):
            return "\(service) had a server error (HTTP \(status))" + (reason.map { ": \($0)" } ?? "")
                + "; try again later"
        case .undecodable(let service, let reason):
            return "\(service) sent an answer airloc cannot read (\(reason))"
        case .cancelled(let service):
            return "the request to \(service) was cancelled"
        }
    }
}

func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
}
