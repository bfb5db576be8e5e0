import Foundation
import Geo
import Location
import Platform
import Settings
import TestSupport
import Testing

@testable import Airloc
@testable import Gazetteer

/// The authorization rules of a session, with the real store in a temporary state
/// directory and scripted answers instead of a person: what a daemon, a script and a
/// person at a terminal each get.
@Suite struct LocationSessionTests {
    struct Answering: AuthorizationPrompter {
        var answer: LocationAuthorization.Answer
        var canAsk: Bool { true }
        func ask(purpose: String) -> LocationAuthorization.Answer { answer }
    }

    func session(
        _ home: TemporaryDirectory, prompter: any AuthorizationPrompter = NeverPrompt(), unattended: Bool = false,
        policy: AuthorizationPolicy = AuthorizationPolicy()
    ) throws -> LocationSession {
        var settings = Settings(directories: XDGDirectories(environment: ["HOME": home.url.path]))
        settings.policy = policy
        let gazetteer = try Gazetteer(path: PackagePaths.file("data/gazetteer.bin").path)
        return LocationSession(settings: settings, gazetteer: gazetteer, prompter: prompter, unattended: unattended)
    }

    @Test func withoutADecisionAndNobodyToAskSensingIsRefused() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let unasked = try session(home)
        do throws(LocationSessionError) {
            _ = try unasked.authorize(purpose: "gpsd")
            Issue.record("sensing was allowed with nobody deciding")
        } catch {
            guard case .notAuthorized(.notDetermined) = error else {
                Issue.record("expected notDetermined, got \(error)")
                return
            }
        }
    }

    @Test func aPersonsAnswerIsKeptForTheNextRun() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let asked = try session(home, prompter: Answering(answer: .allowWhenInUse(.reduced)))
        #expect(try asked.authorize(purpose: "gpsd") == .reduced)
        // The next run has nobody to ask, and needs nobody.
        #expect(try session(home).authorize(purpose: "gpsd") == .reduced)
        #expect(asked.settings.authorizationStore.load()?.status == .authorizedWhenInUse)
    }

    @Test func unattendedUseNeedsTheAlwaysGrant() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        _ = try session(home, prompter: Answering(answer: .allowWhenInUse(.full))).authorize(purpose: "gpsd")
        let unattended = try session(home, unattended: true)
        do throws(LocationSessionError) {
            _ = try unattended.authorize(purpose: "gpsd")
            Issue.record("a when-in-use grant let an unattended run sense")
        } catch {
            guard case .notAuthorized(.needsAlways) = error else {
                Issue.record("expected needsAlways, got \(error)")
                return
            }
        }
        // `airloc auth grant --always`:
        try unattended.settings.authorizationStore.save(
            AuthorizationDecision(status: .authorizedAlways, accuracy: .full))
        #expect(try session(home, unattended: true).authorize(purpose: "gpsd") == .full)
    }

    @Test func theAdministratorsPolicyBeatsThePerson() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let forbidding = try session(
            home, prompter: Answering(answer: .allowAlways(.full)), policy: AuthorizationPolicy(mode: .forbid))
        #expect(throws: LocationSessionError.self) { try forbidding.authorize(purpose: "gpsd") }
    }

    /// Given coordinates need no permission and sense nothing.
    @Test func givenCoordinatesAreUsedAsGivenWithoutAsking() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        var session = try session(home)
        session.settings.givenCoordinate = (Coordinate(uncheckedLatitude: 52.52, longitude: 13.405), "test")
        let location = try await session.locate()
        #expect(location.provider == "manual" && location.fix.source == .manual)
        #expect(location.fix.coordinate == Coordinate(uncheckedLatitude: 52.52, longitude: 13.405))
        #expect(session.settings.authorizationStore.load() == nil, "nothing was asked or stored")
    }

    @Test func anUnknownPlaceIsAnErrorNotAGuess() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        var session = try session(home)
        session.settings.manualPlace = "Nowhereville Qqq"
        #expect(throws: LocationSessionError.self) { _ = try session.manualProvider() }
    }

    /// As `airloc use` decides: a name several places of similar size share is not a
    /// location; one far bigger than its namesakes is.
    @Test func anAmbiguousPlaceIsAnErrorNotACoinToss() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        var session = try session(home)
        session.settings.manualPlace = "Springfield"
        session.settings.manualOrigin = "airloc.conf:2"
        do throws(LocationSessionError) {
            _ = try session.manualProvider()
            Issue.record("Springfield was taken as one place")
        } catch {
            guard case .ambiguousPlace(_, let places, "airloc.conf:2") = error else {
                Issue.record("expected ambiguousPlace, got \(error)")
                return
            }
            #expect(places.filter { $0.name == "Springfield" }.count > 1, "\(places.map(\.displayName))")
        }
        session.settings.manualPlace = "Springfield, IL"
        #expect(try session.manualProvider()?.origin == "place Springfield, Illinois, United States")
        session.settings.manualPlace = "Paris"
        #expect(try session.manualProvider()?.origin == "place Paris, Île-de-France, France")
    }

    @Test func theOutboundCoordinateIsAsCoarseAsAllowed() {
        let point = Coordinate(uncheckedLatitude: 52.520_08, longitude: 13.404_95)
        #expect(
            Privacy.outbound(point, precision: 0.01, accuracy: .full)
                == Coordinate(uncheckedLatitude: 52.52, longitude: 13.4))
        #expect(
            Privacy.outbound(point, precision: 0.01, accuracy: .reduced)
                == Coordinate(uncheckedLatitude: 52.5, longitude: 13.4))
        #expect(
            Privacy.outbound(point, precision: 0.1, accuracy: .reduced)
                == Coordinate(uncheckedLatitude: 52.5, longitude: 13.4))
    }
}
