import Foundation
import Geo
import TestSupport
import Testing

@testable import Location

/// The gpsd provider against a real gpsd fed by gpsfake.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3")))
struct GPSDProviderTests {
    func track(_ kind: String, _ directory: TemporaryDirectory) async throws -> URL {
        let url = directory.file("\(kind).nmea")
        try await SyntheticTrack.write(kind: kind, latitude: 52.52, longitude: 13.405, to: url)
        return url
    }

    @Test func returnsTheFirstValidFix() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let gpsd = try await GPSFake.start(log: try await track("fix", directory))
        defer { gpsd.stop() }
        let provider = GPSDProvider(options: .init(host: "127.0.0.1", port: gpsd.port))
        let fix = try await provider.currentFix(timeout: .seconds(10))
        #expect(abs(fix.coordinate.latitude - 52.52) < 1e-6)
        #expect(abs(fix.coordinate.longitude - 13.405) < 1e-6)
        #expect(fix.source == .gps)
        #expect(fix.mode == .threeD)
        #expect(fix.altitudeMSL == 35)
        #expect(fix.accuracySource == "eph")
        #expect(fix.receivedAt != nil)
    }

    @Test func noFixWithinTheTimeoutSaysWhatTheReceiverReported() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let gpsd = try await GPSFake.start(log: try await track("nofix", directory))
        defer { gpsd.stop() }
        let provider = GPSDProvider(options: .init(host: "127.0.0.1", port: gpsd.port))
        do {
            // Long enough for the receiver's first report on a loaded machine: the error
            // must say what it reported, not only that nothing came.
            _ = try await provider.currentFix(timeout: .seconds(10))
            Issue.record("expected no fix")
        } catch let error as GPSDError {
            guard case .noFix(let seconds, let mode) = error else {
                Issue.record("expected noFix, got \(error)")
                return
            }
            #expect(seconds == 10)
            #expect(mode == .noFix)
            #expect(error.description.contains("no fix"))
        }
    }

    @Test func gpsdNotRunningIsNotReachable() async throws {
        let port = try GPSFake.freePort()
        let provider = GPSDProvider(options: .init(host: "127.0.0.1", port: port))
        do {
            _ = try await provider.currentFix(timeout: .seconds(5))
            Issue.record("expected an error")
        } catch let error as GPSDError {
            guard case .notReachable(let host, let reportedPort, _) = error else {
                Issue.record("expected notReachable, got \(error)")
                return
            }
            #expect(host == "127.0.0.1" && reportedPort == port)
            #expect(error.description.contains("is gpsd running?"))
        }
    }

    @Test func gpsdGoingAwayMidWaitIsReported() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let gpsd = try await GPSFake.start(log: try await track("nofix", directory))
        let provider = GPSDProvider(options: .init(host: "127.0.0.1", port: gpsd.port))
        let seen = SeenMode()
        let waiting = Task { try await provider.currentFix(timeout: .seconds(120), seen: seen) }
        // gpsd goes away while the provider is connected and waiting, not before it got
        // there: the first report from the receiver says so.
        try await Poll.until("the provider's first report from gpsd") { seen.mode != .notSeen }
        gpsd.stop()
        do {
            _ = try await waiting.value
            Issue.record("expected an error")
        } catch let error as GPSDError {
            #expect(error == .wentAway(host: "127.0.0.1", port: gpsd.port))
        }
    }

    @Test func cancellingTheCallerEndsTheWait() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let gpsd = try await GPSFake.start(log: try await track("nofix", directory))
        defer { gpsd.stop() }
        let provider = GPSDProvider(options: .init(host: "127.0.0.1", port: gpsd.port))
        let seen = SeenMode()
        let waiting = Task { try await provider.currentFix(timeout: .seconds(120), seen: seen) }
        try await Poll.until("the provider's first report from gpsd") { seen.mode != .notSeen }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
    }
}

@Suite struct AuthorizationStoreTests {
    @Test func roundTripsAndToleratesDamage() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = AuthorizationStore(stateDirectory: directory.url.appendingPathComponent("airloc"))
        #expect(store.load() == nil)
        try store.save(AuthorizationDecision(status: .authorizedAlways, accuracy: .reduced))
        #expect(store.load() == AuthorizationDecision(status: .authorizedAlways, accuracy: .reduced))
        let attributes = try FileManager.default.attributesOfItem(atPath: store.file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        try Data([0xFF, 0xFE, 0x00]).write(to: store.file)
        #expect(store.load() == nil)
        try store.clear()
        #expect(store.load() == nil)
    }
}
