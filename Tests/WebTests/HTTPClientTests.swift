import Foundation
import TestSupport
import Testing

@testable import Web

/// The client against the local double: every failure class the CLI maps to a message.
@Suite(.enabled(if: ExternalTool.available("python3")))
struct HTTPClientTests {
    struct Answer: Decodable { var generationtime_ms: Double }

    func get(_ double: HTTPDouble, path: String = "/v1/search", timeout: Duration = .seconds(5)) async throws(WebError)
        -> Answer
    {
        let url = ServiceURL(string: double.baseURL)!.url(path: path, query: [("name", "zzz")])
        return try await HTTPClient(timeout: timeout).getJSON(Answer.self, from: url, service: "Test service")
    }

    /// Starts a double with `fault`, makes one request and returns the error it must cause.
    func failure(_ fault: String) async throws -> WebError {
        let double = try await HTTPDouble.start(faults: [fault])
        defer { double.stop() }
        do { _ = try await get(double) } catch { return error }
        throw FixtureError("the request succeeded despite the fault \(fault)")
    }

    @Test func decodesAnOrdinaryAnswer() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let answer = try await get(double)
        #expect(answer.generationtime_ms == 0.2)
    }

    @Test func rateLimitCarriesOpenMeteosReason() async throws {
        let double = try await HTTPDouble.start(faults: [#"{"path": "/v1/search", "status": 429, "reason": "hourly"}"#])
        defer { double.stop() }
        await #expect(
            throws: WebError.rateLimited(
                service: "Test service", reason: "Hourly API request limit exceeded. Please try again in the next hour."
            )
        ) { _ = try await get(double) }
    }

    @Test func badRequestShowsTheReasonAndIsNotRetryable() async throws {
        let error = try await failure(
            #"{"path": "/v1/search", "status": 400, "reason": "Parameter count must be between 1 and 100."}"#)
        #expect(
            error
                == .rejected(
                    service: "Test service", status: 400, reason: "Parameter count must be between 1 and 100."))
        #expect(!error.isRetryable)
    }

    @Test func serverErrorIsRetryable() async throws {
        let error = try await failure(#"{"path": "/v1/search", "status": 503}"#)
        #expect(error == .serverError(service: "Test service", status: 503, reason: "The service is overloaded"))
        #expect(error.isRetryable)
    }

    @Test(arguments: ["garbage", "truncate"])
    func unreadableBodiesAreUndecodable(mode: String) async throws {
        let error = try await failure(#"{"path": "/v1/search", "mode": "\#(mode)"}"#)
        guard case .undecodable(let service, _) = error else {
            Issue.record("expected undecodable, got \(error)")
            return
        }
        #expect(service == "Test service")
    }

    @Test(arguments: ["cut", "close"])
    func aConnectionThatBreaksOffIsRetryable(mode: String) async throws {
        let error = try await failure(#"{"path": "/v1/search", "mode": "\#(mode)"}"#)
        guard case .unreachable(let service, _) = error else {
            Issue.record("expected unreachable, got \(error)")
            return
        }
        #expect(service == "Test service")
        #expect(error.isRetryable)
    }

    @Test func aSlowServiceTimesOut() async throws {
        let double = try await HTTPDouble.start(faults: [#"{"path": "/v1/search", "delay": 60}"#])
        defer { double.stop() }
        await #expect(throws: WebError.timedOut(service: "Test service", seconds: 0.5)) {
            _ = try await get(double, timeout: .milliseconds(500))
        }
    }

    @Test func nobodyListeningIsUnreachable() async throws {
        let url = ServiceURL(string: "http://127.0.0.1:9")!.url(path: "/v1/search")
        await #expect(throws: WebError.unreachable(service: "Test service", reason: "connection refused")) {
            _ = try await HTTPClient(timeout: .seconds(5)).getJSON(Answer.self, from: url, service: "Test service")
        }
    }
}

@Suite struct ServiceURLTests {
    @Test func valuesCannotAddParametersOrPathSegments() {
        let url = ServiceURL(string: "https://example.org")!.url(
            path: "/v1/search", query: [("name", "a&b=c/../d?#%")])
        #expect(url.absoluteString == "https://example.org/v1/search?name=a%26b%3Dc%2F..%2Fd%3F%23%25")
    }

    @Test func baseURLReplacesSchemeHostAndPort() {
        let url = ServiceURL(string: "http://127.0.0.1:8080/")!.url(
            path: "/v1/air-quality", query: [("latitude", "52.5")])
        #expect(url.absoluteString == "http://127.0.0.1:8080/v1/air-quality?latitude=52.5")
    }

    @Test(arguments: ["ftp://x", "not a url", "http://", "https://x/?a=b"])
    func rejectsBaseURLsThatAreNotPlainHTTP(text: String) {
        #expect(ServiceURL(string: text) == nil)
    }

    @Test func errorBodiesOfEachServiceAreRead() {
        #expect(
            ErrorBody.reason(in: Data(#"{"error":true,"reason":"No data is available for this location"}"#.utf8))
                == "No data is available for this location")
        #expect(
            ErrorBody.reason(
                in: Data(#"{"status":429,"error":{"title":"Rate limit exceeded","message":"Upgrade"}}"#.utf8))
                == "Upgrade")
        #expect(ErrorBody.reason(in: Data("<html>".utf8)) == nil)
    }
}
