import Foundation
import Geo
import Testing

@testable import Location

/// The provider chain's order, skipping, hand-over and deadlines, and GeoClue's
/// preference rule. Providers here are scripted values: the chain's logic is what is
/// under test (the real providers have their own suites).
@Suite struct LocationChainTests {
    struct Scripted: LocationProvider {
        enum Behaviour: Sendable {
            case answer(Coordinate)
            case fail(String)
            /// Never answers on its own; relies on the chain's deadline.
            case hang
        }

        var name: String
        var senses: Bool
        var behaviour: Behaviour

        func currentFix(timeout: Duration) async throws -> Fix {
            switch behaviour {
            case .answer(let coordinate): return Fix(coordinate: coordinate, source: senses ? .gps : .manual)
            case .fail(let reason): throw ScriptedError(reason: reason)
            case .hang:
                // Honour the deadline the way every real provider must.
                try await Task.sleep(for: timeout)
                throw ScriptedError(reason: "no answer within \(timeout)")
            }
        }
    }

    struct ScriptedError: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    let berlin = Coordinate(uncheckedLatitude: 52.52, longitude: 13.405)
    let paris = Coordinate(uncheckedLatitude: 48.85, longitude: 2.35)

    @Test func theFirstAnsweringProviderWinsAndTheOthersSayWhy() async throws {
        let chain = LocationChain([
            .init(Scripted(name: "gpsd", senses: true, behaviour: .fail("cannot reach gpsd")), deadline: .seconds(1)),
            .init(Scripted(name: "ip", senses: true, behaviour: .answer(paris)), deadline: .seconds(1)),
            .init(Scripted(name: "manual", senses: false, behaviour: .answer(berlin)), deadline: .seconds(1)),
        ])
        let answer = try await chain.locate { _ in nil }
        #expect(answer.provider == "ip")
        #expect(answer.fix.coordinate == paris)
        #expect(answer.attempts.map(\.outcome) == [.failed("cannot reach gpsd"), .answered, .notTried])
    }

    @Test func aProviderThatMayNotRunIsNeverStarted() async throws {
        let chain = LocationChain([
            .init(Scripted(name: "gpsd", senses: true, behaviour: .answer(paris)), deadline: .seconds(1)),
            .init(Scripted(name: "manual", senses: false, behaviour: .answer(berlin)), deadline: .seconds(1)),
        ])
        let answer = try await chain.locate { $0.senses ? "not authorized" : nil }
        #expect(answer.provider == "manual")
        #expect(answer.attempts.first?.outcome == .skipped("not authorized"))
        #expect(answer.attempts.first?.seconds == nil)
    }

    @Test func aHangingProviderHandsOverAtItsDeadline() async throws {
        let chain = LocationChain([
            .init(Scripted(name: "gpsd", senses: true, behaviour: .hang), deadline: .milliseconds(300)),
            .init(Scripted(name: "manual", senses: false, behaviour: .answer(berlin)), deadline: .seconds(1)),
        ])
        let answer = try await chain.locate { _ in nil }
        #expect(answer.provider == "manual")
        guard case .failed(let reason) = answer.attempts[0].outcome else {
            Issue.record("expected the hanging provider to fail")
            return
        }
        #expect(reason.contains("no answer"))
    }

    @Test func nothingAnsweringListsEveryAttempt() async {
        let chain = LocationChain([
            .init(Scripted(name: "gpsd", senses: true, behaviour: .fail("no fix within 3 s")), deadline: .seconds(1)),
            .init(
                Scripted(name: "ip", senses: true, behaviour: .fail("ipwho.is: rate limited")), deadline: .seconds(1)),
        ])
        await #expect {
            _ = try await chain.locate { _ in nil }
        } throws: { error in
            guard let failure = error as? LocationChain.ChainFailure else { return false }
            return failure.description == "no location: gpsd: no fix within 3 s; ip: ipwho.is: rate limited"
                && failure.errors.count == 2
        }
    }

    @Test func preferenceFollowsGeoCluesRule() {
        let now = Date()
        let gps = Fix(
            coordinate: berlin, source: .gps, horizontalAccuracy: 10, receivedAt: now)
        let ipNearby = Fix(
            coordinate: Coordinate(uncheckedLatitude: 52.5201, longitude: 13.405), source: .ip,
            horizontalAccuracy: 25_000, receivedAt: now.addingTimeInterval(1))
        let ipFar = Fix(
            coordinate: paris, source: .ip, horizontalAccuracy: 25_000, receivedAt: now.addingTimeInterval(1))
        let olderGPS = Fix(
            coordinate: paris, source: .gps, horizontalAccuracy: 5, receivedAt: now.addingTimeInterval(-5))
        let newerGPS = Fix(
            coordinate: paris, source: .gps, horizontalAccuracy: 8, receivedAt: now.addingTimeInterval(2))
        // A less accurate IP fix never displaces a current GPS fix, near or far; an older fix
        // never replaces a newer one.
        #expect(!FixPreference.shouldReplace(gps, heldIsCurrent: true, with: ipFar))
        #expect(!FixPreference.shouldReplace(gps, heldIsCurrent: true, with: ipNearby))
        #expect(!FixPreference.shouldReplace(gps, heldIsCurrent: true, with: olderGPS))
        #expect(FixPreference.shouldReplace(gps, heldIsCurrent: true, with: newerGPS))
        // Anything replaces a stale fix, or no fix.
        #expect(FixPreference.shouldReplace(gps, heldIsCurrent: false, with: ipFar))
        #expect(FixPreference.shouldReplace(nil, heldIsCurrent: false, with: ipFar))
    }
}
