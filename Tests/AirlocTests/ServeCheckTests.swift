import Foundation
import Platform
import Settings
import Testing
import Web

@testable import Airloc

#if canImport(Glibc)
    import Glibc
#endif

/// doctor's `[serve]` check: the address free, served by airloc serve or taken by another
/// program; the password file's mode and content; the refusal to serve the network
/// without one. The port is really bound; what listens there is a test's own socket, and
/// what it answers comes from an injected transport.
@Suite struct ServeCheckTests {
    /// Answers every GET with one status and body, and counts the requests.
    final class Answering: HTTPTransport, @unchecked Sendable {
        let status: Int
        let body: String
        private(set) var asked: [URL] = []
        init(_ status: Int, _ body: String) { (self.status, self.body) = (status, body) }
        func get(_ url: URL, service: String, timeout: Duration) async throws(WebError) -> (status: Int, body: Data) {
            asked.append(url)
            return (status, Data(body.utf8))
        }
    }

    /// A socket listening on a loopback port of its own (the "other program").
    final class Listener {
        let descriptor: Int32
        let port: Int
        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.descriptor = descriptor
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(descriptor, pointer, length) == 0 && listen(descriptor, 4) == 0
                        && getsockname(descriptor, pointer, &length) == 0
                }
            }
            guard bound else { throw POSIXError(.EADDRINUSE) }
            port = Int(UInt16(bigEndian: address.sin_port))
        }
        deinit { close(descriptor) }
    }

    static func settings(_ edit: (inout ServeSettings) -> Void) -> Settings {
        var settings = Settings(directories: XDGDirectories(environment: ["HOME": "/nonexistent"]))
        edit(&settings.serve)
        return settings
    }

    @Test func aTakenPortIsAirlocServeOnlyWhenItAnswersAsAirlocServe() async throws {
        let listener = try Listener()
        let settings = Self.settings { $0.port = listener.port }
        for (status, body, expected) in [
            (200, "# HELP airloc_build_info …\nairloc_build_info{version=\"0.2.0\"} 1\n", HealthCheck.Status.ok),
            (401, "this page needs the password of [serve] password-file\n", .ok),
            (200, "<html>a router's admin page</html>", .fail),
            (404, "not found", .fail),
        ] {
            let transport = Answering(status, body)
            let check = try #require(await HealthCheck.serve(settings, transport: transport).last)
            #expect(check.name == "serve address" && check.status == expected, "\(status) \(body): \(check)")
            #expect(transport.asked.map(\.absoluteString) == ["http://127.0.0.1:\(listener.port)/metrics"])
            if expected == .fail {
                #expect(check.detail.contains("taken by another program") && check.advice != nil, "\(check)")
            }
        }
    }

    @Test func theDefaultAddressTakenIsOnlyAWarning() async throws {
        // Most devices never serve, and another program may have 8642: doctor must not fail
        // for that; an address or a password the user set means they serve.
        #expect(HealthCheck.severity(ServeSettings()) == .warn)
        #expect(HealthCheck.severity(Self.settings { $0.port = 9000 }.serve) == .fail)
        #expect(HealthCheck.severity(Self.settings { $0.passwordFile = "/etc/airloc/serve-password" }.serve) == .fail)
        let listener = try Listener()
        let set = await HealthCheck.serve(Self.settings { $0.port = listener.port }, transport: Answering(404, ""))
        #expect(set.last?.status == .fail, "a port the user set is a failure: \(set)")
    }

    @Test func aFreePortIsSaidFreeWithoutAskingAnything() async throws {
        let port = try Listener().port  // closed again when the listener goes
        let transport = Answering(200, "")
        let checks = await HealthCheck.serve(Self.settings { $0.port = port }, transport: transport)
        #expect(checks.map(\.status) == [.ok] && checks[0].detail.contains("is free"), "\(checks)")
        #expect(transport.asked.isEmpty)
    }

    @Test func anAddressOfAnotherMachineCannotBeListenedOn() async throws {
        // 192.0.2.1 (TEST-NET-1) is no address of this machine: bind says so, nothing is sent.
        let checks = await HealthCheck.serve(
            Self.settings { ($0.host, $0.port, $0.position) = ("192.0.2.1", 8642, .none) },
            transport: Answering(200, ""))
        #expect(checks.last?.status == .fail && checks.last?.detail.contains("cannot listen") == true, "\(checks)")
    }

    @Test func thePasswordFileMustBeTheOwnersAloneAndHoldAPassword() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-check-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("password").path
        let port = try Listener().port
        func check(_ contents: String?, mode: Int) async -> HealthCheck? {
            try? FileManager.default.removeItem(atPath: file)
            if let contents {
                _ = FileManager.default.createFile(atPath: file, contents: Data(contents.utf8))
                chmod(file, mode_t(mode))
            }
            let settings = Self.settings { ($0.port, $0.passwordFile) = (port, file) }
            return await HealthCheck.serve(settings, transport: Answering(200, "")).first {
                $0.name == "serve password"
            }
        }
        let good = await check("s3cret\n", mode: 0o600)
        #expect(good?.status == .ok && good?.detail.contains("s3cret") == false, "\(String(describing: good))")
        let open = await check("s3cret\n", mode: 0o644)
        #expect(open?.status == .fail && open?.advice == "chmod 600 \(file)", "\(String(describing: open))")
        #expect(open?.detail.contains("s3cret") == false)
        let empty = await check("", mode: 0o600)
        #expect(empty?.status == .fail && empty?.detail.contains("empty") == true, "\(String(describing: empty))")
        let missing = await check(nil, mode: 0)
        #expect(
            missing?.status == .fail && missing?.detail.contains("No such file") == true,
            "\(String(describing: missing))")
    }

    @Test func theNetworkWithoutAPasswordIsRefusedUnlessNothingIsShown() async throws {
        let port = try Listener().port
        let open = await HealthCheck.serve(Self.settings { ($0.host, $0.port) = ("0.0.0.0", port) })
        #expect(open.first?.name == "serve" && open.first?.status == .fail, "\(open)")
        #expect(open.first?.detail.contains("no password-file") == true, "\(open)")
        let none = await HealthCheck.serve(Self.settings { ($0.host, $0.port, $0.position) = ("0.0.0.0", port, .none) })
        #expect(!none.contains { $0.name == "serve" }, "\(none)")
    }
}
