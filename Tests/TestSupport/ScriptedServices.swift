import Foundation
import Web

/// The web services in-process: an ``HTTPTransport`` that answers with the recorded
/// shapes (``RecordedAnswers``) and, per path, with scripted faults — statuses, bodies,
/// transport failures, and slowness measured on a ``ManualTime`` instead of the wall clock.
///
/// Contract: a `.slow(d)` answer moves the clock by `d` when `d` is within the request's
/// timeout and answers; otherwise it moves the clock by the timeout and throws
/// `.timedOut`, exactly as the network transport would, only without waiting. Every
/// request is recorded with the timeout it was given and the clock's elapsed time when it
/// was sent. Scripts for a path are used in order; when they run out (or with `always`)
/// the last one repeats or the recorded answer is served.
public final class ScriptedServices: HTTPTransport, @unchecked Sendable {
    public indirect enum Answer: Sendable {
        /// The recorded answer for the path.
        case recorded
        /// An HTTP status with Open-Meteo's error shape (`{"error":true,"reason":...}`).
        case status(Int, reason: String? = nil)
        /// An HTTP status with this exact body.
        case body(Int, String)
        /// A failure below HTTP.
        case failure(WebError)
        /// The answer comes after `Duration` of the clock (or the request times out).
        case slow(Duration, then: Answer = .recorded)
    }

    public struct Request: Sendable {
        public var url: URL
        public var path: String { url.path.isEmpty ? "/" : url.path }
        public var query: [String: String]
        /// The timeout the client gave this attempt.
        public var timeout: Duration
        /// The clock's elapsed time when it was sent.
        public var sentAt: Duration
    }

    public let time: ManualTime
    private let lock = NSLock()
    private var scripts: [String: (answers: [Answer], repeatLast: Bool)] = [:]
    private var received: [Request] = []

    public init(time: ManualTime) { self.time = time }

    /// The next answers for `path`, in order; after them the recorded answer is served.
    public func script(_ path: String, _ answers: Answer...) {
        lock.withLock { scripts[path] = (answers, false) }
    }

    /// Every request to `path` gets `answer`.
    public func always(_ path: String, _ answer: Answer) {
        lock.withLock { scripts[path] = ([answer], true) }
    }

    public var requests: [Request] { lock.withLock { received } }
    public func requests(to path: String) -> [Request] { requests.filter { $0.path == path } }

    public func get(_ url: URL, service: String, timeout: Duration) async throws(WebError) -> (
        status: Int, body: Data
    ) {
        let query = Dictionary(
            (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map {
                ($0.name, $0.value ?? "")
            }, uniquingKeysWith: { first, _ in first })
        let request = Request(url: url, query: query, timeout: timeout, sentAt: time.elapsed)
        let answer: Answer = lock.withLock {
            received.append(request)
            guard var script = scripts[request.path], !script.answers.isEmpty else { return .recorded }
            if script.repeatLast && script.answers.count == 1 { return script.answers[0] }
            let next = script.answers.removeFirst()
            scripts[request.path] = script
            return next
        }
        return try respond(answer, to: request, service: service, timeout: timeout, spent: .zero)
    }

    private func respond(_ answer: Answer, to request: Request, service: String, timeout: Duration, spent: Duration)
        throws(WebError) -> (status: Int, body: Data)
    {
        switch answer {
        case .recorded:
            return RecordedAnswers.answer(path: request.path, query: request.query, date: time.date)
        case .status(let status, let reason):
            let body = #"{"error":true,"reason":\#(RecordedAnswers.quoted(reason ?? "Injected failure"))}"#
            return (status, Data(body.utf8))
        case .body(let status, let body):
            return (status, Data(body.utf8))
        case .failure(let error):
            throw error
        case .slow(let delay, let then):
            guard spent + delay <= timeout else {
                time.advance(by: timeout - spent)
                throw .timedOut(service: service, seconds: timeout.seconds)
            }
            time.advance(by: delay)
            return try respond(then, to: request, service: service, timeout: timeout, spent: spent + delay)
        }
    }
}
