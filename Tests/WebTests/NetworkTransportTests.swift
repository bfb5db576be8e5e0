import Foundation
import Platform
import TestSupport
import Testing

@testable import Web

#if canImport(Glibc)
    import Glibc
#endif

/// The network transport (libcurl, loaded on the first request) against a server that
/// accepts and never answers, and against the local double.
struct NetworkTransportTests {
    /// A listening socket nobody accepts from: connections complete in the kernel's
    /// backlog and the request is sent, but no answer ever comes.
    final class SilentServer {
        let fd: Int32
        let port: Int

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
            }
            guard fd >= 0, bound, named, listen(fd, 1024) == 0 else {
                close(fd)
                throw FixtureError("no silent server")
            }
            self.fd = fd
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(fd) }

        var url: URL { URL(string: "http://127.0.0.1:\(port)/v1/air-quality")! }
    }

    /// Cancellation meeting the request's own timeout: with corelibs-foundation's
    /// `URLSession.data(for:)`, the transport before this one, the two deadlocked
    /// (swift-corelibs-foundation#5412: hung 2 runs of 2, and in CI a few commands in a
    /// hundred). Every request must end, cancelled or timed out; none may hang: a hang
    /// fails the test at its time limit (it takes seconds; the limit is for a loaded
    /// machine, not a race).
    @Test(.timeLimit(.minutes(5))) func cancellingWhileTheRequestTimesOutNeverHangs() async throws {
        let server = try SilentServer()
        let url = server.url
        // 6,000 requests, each round takes a few milliseconds.
        for round in 0..<300 {
            // Twenty requests at once with a 5 ms timeout, cancelled at once or after up
            // to 1.6 ms: the cancellations sweep across the moment the timeout fails them.
            let requests = (0..<20).map { _ in
                Task {
                    try await NetworkTransport().get(url, service: "Open-Meteo", timeout: .milliseconds(5))
                }
            }
            for (index, request) in requests.enumerated() {
                if index % 2 == 0 {
                    await Task.yield()
                } else {
                    try await Task.sleep(for: .microseconds(200 * ((index + round) % 9)))
                }
                request.cancel()
            }
            for request in requests {
                guard case .failure(let error) = await request.result else {
                    Issue.record("a silent server cannot answer")
                    continue
                }
                switch error as? WebError {
                case .cancelled?, .timedOut?: break
                default: Issue.record("round \(round): neither cancelled nor timed out: \(error)")
                }
            }
        }
    }

    /// A cancelled request ends as cancelled, not at its timeout: with a minute to go, a
    /// cancellation that did not reach libcurl would end as `.timedOut`.
    @Test func aCancelledRequestEndsCancelled() async throws {
        let server = try SilentServer()
        let url = server.url
        let started = OnceCell<Bool>()
        let request = Task {
            started.set(true)
            return try await NetworkTransport().get(url, service: "Open-Meteo", timeout: .seconds(60))
        }
        _ = await started.value
        request.cancel()
        await #expect(throws: WebError.cancelled(service: "Open-Meteo")) { try await request.value }
    }

    /// A silent server times the request out with the service's name and the timeout.
    @Test func aSilentServerTimesOut() async throws {
        let server = try SilentServer()
        await #expect(throws: WebError.timedOut(service: "Open-Meteo", seconds: 0.2)) {
            _ = try await NetworkTransport().get(server.url, service: "Open-Meteo", timeout: .milliseconds(200))
        }
    }

    @Test(.enabled(if: ExternalTool.available("python3")))
    func anAnswerOverTheLimitIsRefusedNotTruncated() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let url = ServiceURL(string: double.baseURL)!.url(path: "/v1/search", query: [("name", "Berlin")])
        let (status, body) = try await NetworkTransport().get(url, service: "Open-Meteo", timeout: .seconds(30))
        #expect(status == 200)
        #expect(body.count > 16)
        await #expect(
            throws: WebError.undecodable(service: "Open-Meteo", reason: "the answer is larger than 16 bytes")
        ) {
            _ = try await NetworkTransport(maximumBody: 16).get(url, service: "Open-Meteo", timeout: .seconds(30))
        }
    }
}
