import Foundation
import TestSupport
import Testing

@testable import Web

#if canImport(Glibc)
    import Glibc
#endif

/// The network transport against a server that accepts and never answers, cancelled
/// while the request's own timeout fails it: the two meet on the session's work queue,
/// where corelibs-foundation's `URLSession.data(for:)` deadlocks (swift-corelibs-
/// foundation#5412). Every request must end, cancelled or timed out; none may hang.
struct URLSessionTransportTests {
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
    }

    @Test func cancellingWhileTheRequestTimesOutNeverHangs() async throws {
        let server = try SilentServer()
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/v1/air-quality"))
        // 6,000 requests: with `URLSession.data(for:)` this hung in 2 runs of 2 (and in
        // CI, a few times in a hundred commands); each round takes a few milliseconds.
        for round in 0..<300 {
            // Twenty requests at once with a 5 ms timeout, cancelled at once or after up
            // to 1.6 ms: the cancellations sweep across the moment the timeout fails them.
            let requests = (0..<20).map { _ in
                Task {
                    try await URLSessionTransport().get(url, service: "Open-Meteo", timeout: .milliseconds(5))
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
                // A deadlocked request never ends; a working one ends within its timeout
                // plus the deadline's grace. A minute is for a loaded machine, not a race.
                let ended = FirstOutcome<Bool>()
                Task {
                    _ = await request.result
                    ended.settle(true)
                }
                let watchdog = Task {
                    try? await Task.sleep(for: .seconds(60))
                    ended.settle(false)
                }
                #expect(await ended.value, "round \(round): a request neither ended nor was cancelled")
                watchdog.cancel()
                guard case .failure(let error) = await request.result else {
                    Issue.record("a silent server cannot answer")
                    continue
                }
                switch error as? WebError {
                case .cancelled?, .timedOut?: break
                default: Issue.record("neither cancelled nor timed out: \(error)")
                }
            }
        }
    }
}
