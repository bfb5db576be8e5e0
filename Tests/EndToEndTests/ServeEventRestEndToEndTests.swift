import Foundation
import TestSupport
import Testing

/// An event stream over a quiet logbook carried only keep-alives, which a client that never
/// reads takes into its socket's buffer for ever: 8 addresses × 4 such streams kept every
/// other browser off live updates. After 30 s of keep-alives alone the stream says `rest`
/// and ends; a browser reconnects 2 s later from the row it had (nothing is missed).
@Suite(.enabled(if: ExternalTool.available("curl")))
struct ServeEventRestEndToEndTests {
    @Test func aQuietEventStreamRestsAndEnds() async throws {
        let (home, server, port) = try await ServeEndToEndTests.serve("[serve]\nlisten = 127.0.0.1:0\n")
        defer { home.remove() }
        defer { server.stop() }
        let stream = try await ChildProcess.run(
            "/usr/bin/env", ["curl", "-sS", "-N", "--max-time", "300", "http://127.0.0.1:\(port)/api/events"],
            environment: [:], timeout: 400)
        #expect(stream.status == 0, "the server ended the stream: \(stream)")
        #expect(stream.stdout.contains(": keep-alive"), "\(stream.stdout)")
        #expect(stream.stdout.hasSuffix("event: rest\ndata: quiet\n\n"), "\(stream.stdout)")
        #expect(try await server.terminate().status == 0)
    }
}
