import Foundation
import Geo
import TestSupport
import Testing
import Web

@testable import Location

/// IP geolocation through the real HTTP path, against the local double.
@Suite(.enabled(if: ExternalTool.available("python3")))
struct IPLocationProviderTests {
    func provider(_ service: IPService, _ double: HTTPDouble) -> IPLocationProvider {
        IPLocationProvider(service: service, baseURL: ServiceURL(string: double.baseURL)!)
    }

    @Test func aCityLevelAnswerIsNeverPresentedAsPrecise() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        for service in [IPService.ipwhois, .ipinfo, .ipapi] {
            let (fix, answer) = try await provider(service, double).locate(timeout: .seconds(5))
            #expect(abs(fix.coordinate.latitude - 52.52) < 0.01, "\(service)")
            #expect(fix.source == .ip)
            #expect(fix.horizontalAccuracy == 25_000)
            #expect(fix.accuracySource == "IP address (city level)")
            #expect(answer.countryCode == "DE")
        }
        // One request per lookup, to each service's own path, with no query.
        #expect(try double.requests().map(\.path) == ["/", "/json", "/json/"])
        #expect(try double.requests().allSatisfy { $0.query.isEmpty })
    }

    @Test func rateLimitIsRetryableAndCarriesTheServicesText() async throws {
        let double = try await HTTPDouble.start(faults: [
            #"{"path": "/json", "status": 429, "body": {"status": 429, "error": {"title": "Rate limit exceeded", "message": "Upgrade to increase your usage limits"}}}"#
        ])
        defer { double.stop() }
        do {
            _ = try await provider(.ipinfo, double).locate(timeout: .seconds(5))
            Issue.record("expected a rate-limit error")
        } catch {
            #expect(error == .web(.rateLimited(service: "ipinfo.io", reason: "Upgrade to increase your usage limits")))
            #expect(error.isRetryable)
        }
    }

    @Test(arguments: [
        #"{"path": "/json/", "status": 200, "body": {"latitude": "Sign up to access", "longitude": "Sign up to access"}}"#,
        #"{"path": "/json/", "mode": "garbage"}"#,
        #"{"path": "/json/", "mode": "truncate"}"#,
    ])
    func unusableAnswersFailCleanly(fault: String) async throws {
        let double = try await HTTPDouble.start(faults: [fault])
        defer { double.stop() }
        do {
            _ = try await provider(.ipapi, double).locate(timeout: .seconds(5))
            Issue.record("expected an error")
        } catch {
            guard case .unusable(let service, _) = error else {
                Issue.record("expected unusable, got \(error)")
                return
            }
            #expect(service == "ipapi.co")
            #expect(!error.isRetryable)
        }
    }

    @Test func aSlowServiceEndsAtTheDeadline() async throws {
        let double = try await HTTPDouble.start(faults: [#"{"path": "/", "delay": 60}"#])
        defer { double.stop() }
        do {
            _ = try await provider(.ipwhois, double).locate(timeout: .seconds(1))
            Issue.record("expected a timeout")
        } catch {
            #expect(error == .web(.timedOut(service: "ipwho.is", seconds: 1)))
        }
    }
}
