import Foundation
import TestSupport
import Testing

/// `serve` on every address announced `http://0.0.0.0:PORT/`, which a phone cannot open;
/// it now names the host and its network addresses, and each address it names answers.
@Suite(.enabled(if: ExternalTool.available("curl")))
struct ServeAddressEndToEndTests {
    @Test func aServerOnEveryAddressSaysWhereAnotherMachineOpensIt() async throws {
        let (home, server, port) = try await ServeEndToEndTests.serve(
            "[serve]\nlisten = 0.0.0.0:0\nposition = none\n")
        defer { home.remove() }
        defer { server.stop() }
        try await Poll.until("the addresses said") { server.errors.contains("airloc: open http://") }
        let line = try #require(
            server.errors.split(separator: "\n").first { $0.hasPrefix("airloc: open http://") }, "\(server.errors)")
        #expect(!line.contains("0.0.0.0"), "\(line)")
        let urls = line.split(separator: " ").filter { $0.hasPrefix("http://") }.map(String.init)
        #expect(!urls.isEmpty && urls.allSatisfy { $0.hasSuffix(":\(port)/") }, "\(line)")
        // Each address it names (the host's name may need mDNS this machine lacks) answers.
        for url in urls where url.dropFirst(7).first?.isNumber == true {
            let answer = try await ChildProcess.run(
                "/usr/bin/env",
                ["curl", "-sS", "--max-time", "60", "-o", "/dev/null", "-w", "%{http_code}", url + "api/status"],
                environment: [:])
            #expect(answer.stdout == "200", "\(url): \(answer)")
        }
        #expect(try await server.terminate().status == 0)
    }
}
